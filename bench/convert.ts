// evalkit convert on a generated lm-eval run whose samples file is ≥ 500 MB (CONVERT_BENCH_MB to change): throughput
// against splitting and JSON.parse'ing the same bytes, and peak RSS, each in a fresh child process.
// Targets (from the issue): ≥ 0.5× the JSON.parse baseline; peak RSS < 256 MB whatever the input size.
// Other sources add their own file (bench/convert-inspect.ts: a 50,000-sample .eval) using _convert-measure.ts.
import { createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { compareWithBaseline } from './_convert-measure.js';

const TS = '2025-01-01T00-00-00.000000';
const TASK = 'bench_task';

/** A samples line shaped like lm-eval 0.4 generate_until output (~2 KB, text-heavy like real prompts). */
function sampleLine(i: number): string {
  const question = `Question ${i}: ${'Consider the following passage about a long and winding topic. '.repeat(12)}What is ${i} + ${i}?`;
  return JSON.stringify({
    doc_id: i,
    doc: { question, answer: String(2 * i), id: `q-${i}` },
    target: String(2 * i),
    arguments: {
      gen_args_0: {
        arg_0: `Problem: ${question}\n\nSolution:`,
        arg_1: { until: ['Problem:'], do_sample: false, temperature: 0 },
      },
    },
    resps: [[` The answer is ${2 * i + (i % 3 === 0 ? 1 : 0)}. ${'Reasoning step. '.repeat(10)}`]],
    filtered_resps: [String(2 * i + (i % 3 === 0 ? 1 : 0))],
    filter: 'none',
    metrics: ['exact_match'],
    doc_hash: 'a'.repeat(64),
    prompt_hash: 'b'.repeat(64),
    target_hash: 'c'.repeat(64),
    exact_match: i % 3 === 0 ? 0.0 : 1.0,
  });
}

export async function generate(
  dir: string,
  targetBytes: number,
): Promise<{ samples: string; bytes: number; lines: number }> {
  const samples = join(dir, `samples_${TASK}_${TS}.jsonl`);
  const out = createWriteStream(samples);
  let bytes = 0;
  let lines = 0;
  while (bytes < targetBytes) {
    let block = '';
    for (let k = 0; k < 1000; k++) block += `${sampleLine(lines++)}\n`;
    bytes += Buffer.byteLength(block);
    if (!out.write(block)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  writeFileSync(
    join(dir, `results_${TS}.json`),
    JSON.stringify({
      results: { [TASK]: { alias: TASK, 'exact_match,none': 2 / 3, 'exact_match_stderr,none': 0.001 } },
      configs: { [TASK]: { task: TASK, output_type: 'generate_until', dataset_path: 'bench/generated' } },
      versions: { [TASK]: 1 },
      'n-samples': { [TASK]: { original: lines, effective: lines } },
      higher_is_better: { [TASK]: { exact_match: true } },
      config: { model: 'hf', model_args: 'pretrained=bench/model' },
      date: 1735689600,
      lm_eval_version: '0.4.9',
    }),
  );
  return { samples, bytes: statSync(samples).size, lines };
}

export async function run(): Promise<void> {
  const mb = Number(process.env.CONVERT_BENCH_MB ?? 512);
  const dir = mkdtempSync(join(tmpdir(), 'evalkit-bench-convert-'));
  try {
    const { samples, bytes, lines } = await generate(join(dir), mb * 1024 * 1024);
    console.log(`generated ${lines} lm-eval samples lines (${(bytes / 1024 / 1024).toFixed(0)} MB)`);
    await compareWithBaseline({
      label: 'lm-eval samples → EEE pair',
      bytes,
      baseline: ['parse-jsonl', samples],
      convert: ['convert', join(dir, 'out'), join(dir, `results_${TS}.json`)],
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
