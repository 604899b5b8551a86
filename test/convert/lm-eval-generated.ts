// A generated lm-eval 0.4 run of any size, varied on purpose for the chunked (worker) conversion path: a
// multiple-choice task and a generate_until task whose lines carry multi-byte UTF-8 (2-, 3- and 4-byte characters,
// a lone surrogate escape, U+2028), control characters, odd numbers (-0, 1e21, 0.1), boolean and missing metrics,
// filters other than none, unknown keys, targets of every shape, CRLF line ends and blank lines. Deterministic.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const GENERATED_TS = '2025-03-04T05-06-07.080910';

const WORDS = ['alpha', 'béta', 'γάμμα', '中文字', 'emoji 😀🎉', 'tab\there', 'quote"s', 'back\\slash', 'ok'];

/** One generate_until samples line (its JSON text). */
export function generationLine(i: number): string {
  const word = WORDS[i % WORDS.length];
  const prompt = `Q${i}: ${word} ${'lorem ipsum dolor '.repeat(1 + (i % 7))}\u2028?`;
  const line: Record<string, unknown> = {
    doc_id: i % 11 === 0 ? `id-${i}` : i,
    doc: { question: prompt, answer: String(2 * i), weird: i % 13 === 0 ? '\ud800 lone' : 'x\u0001y' },
    target: i % 5 === 0 ? [String(i), `${i}.0`] : i % 17 === 0 ? null : String(2 * i),
    arguments: { gen_args_0: { arg_0: `Problem: ${prompt}\n`, arg_1: { until: ['\n\n'], temperature: 0 } } },
    resps: [[`The answer is ${2 * i} ${word}`]],
    filtered_resps: [String(2 * i + (i % 3 === 0 ? 1 : 0))],
    filter: i % 4 === 0 ? 'strict-match' : 'none',
    metrics: i % 19 === 0 ? [] : ['exact_match', 'f1'],
    doc_hash: `${i}`.padStart(8, '0'),
    exact_match: i % 3 === 0 ? 0.0 : i % 7 === 0 ? true : 1.0,
    f1: i % 2 === 0 ? 0.1 : i % 9 === 0 ? -0 : 1e21,
  };
  if (i % 10 === 0) line.extra_field = { nested: [1, 2.5, 'é'] };
  return JSON.stringify(line);
}

/** One multiple_choice samples line. */
export function choiceLine(i: number): string {
  const word = WORDS[(i * 5) % WORDS.length];
  return JSON.stringify({
    doc_id: i,
    doc: { q: `question ${i} ${word}`, label: i % 2 },
    target: i % 2,
    arguments: {
      gen_args_0: { arg_0: `Q${i} ${word}?`, arg_1: ' yes' },
      gen_args_1: { arg_0: `Q${i} ${word}?`, arg_1: ' non ✓' },
    },
    resps: [[['-1.5', 'False']], [[`-${(i % 4) * 0.5}`, 'True']]],
    filtered_resps: [
      ['-1.5', 'False'],
      [`-${(i % 4) * 0.5}`, 'True'],
    ],
    filter: 'none',
    metrics: ['acc'],
    acc: i % 2 === 0 ? 1 : 0,
  });
}

/**
 * Writes results_<ts>.json and two samples files of about `bytesPerFile` each into `dir`; returns the results path
 * and the samples paths. `crlf` ends the generation file's lines with CRLF (and adds blank lines).
 */
export function writeGeneratedRun(
  dir: string,
  bytesPerFile: number,
  options: { crlf?: boolean; finalNewline?: boolean } = {},
): { results: string; generation: string; choice: string; lines: { generation: number; choice: number } } {
  mkdirSync(dir, { recursive: true });
  const nl = options.crlf ? '\r\n' : '\n';
  const build = (make: (i: number) => string, blanks: boolean): { text: string; lines: number } => {
    const parts: string[] = [];
    let bytes = 0;
    let i = 0;
    while (bytes < bytesPerFile) {
      const l = make(i++);
      parts.push(l);
      bytes += Buffer.byteLength(l) + nl.length;
      if (blanks && i % 97 === 0) parts.push(i % 2 ? '' : '  ');
    }
    return { text: parts.join(nl) + (options.finalNewline === false ? '' : nl), lines: parts.length };
  };
  const gen = build(generationLine, options.crlf === true);
  const mc = build(choiceLine, false);
  const generation = join(dir, `samples_gen_task_${GENERATED_TS}.jsonl`);
  const choice = join(dir, `samples_mc_task_${GENERATED_TS}.jsonl`);
  writeFileSync(generation, gen.text);
  writeFileSync(choice, mc.text);
  const results = join(dir, `results_${GENERATED_TS}.json`);
  writeFileSync(
    results,
    JSON.stringify({
      results: {
        gen_task: {
          alias: 'gen_task',
          'exact_match,none': 0.5,
          'exact_match_stderr,none': 0.01,
          'exact_match,strict-match': 0.4,
          'f1,none': 0.3,
        },
        mc_task: { alias: 'mc_task', 'acc,none': 0.5, 'acc_stderr,none': 0.02 },
      },
      configs: {
        gen_task: { task: 'gen_task', output_type: 'generate_until', dataset_path: 'gen/data' },
        mc_task: { task: 'mc_task', output_type: 'multiple_choice', dataset_path: 'mc/data' },
      },
      versions: { gen_task: 1, mc_task: 2 },
      'n-samples': { gen_task: { original: gen.lines, effective: gen.lines } },
      config: { model: 'hf', model_args: 'pretrained=gen/model' },
      date: 1741064767,
      lm_eval_version: '0.4.9',
    }),
  );
  return { results, generation, choice, lines: { generation: gen.lines, choice: mc.lines } };
}
