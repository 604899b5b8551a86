// evalkit convert on a generated lm-eval run whose samples file is ≥ 500 MB, in two shapes (CONVERT_BENCH_MB,
// CONVERT_BENCH_ROUNDS and CONVERT_BENCH_SHAPES=compact,python to change): throughput against splitting and
// JSON.parse'ing the same bytes, by wall time and by CPU time, and peak RSS, each in a fresh child process. The
// converter is the bundled CLI as shipped, with its worker threads (--jobs auto) and in one thread (--jobs 1).
// Beside them, what this machine allows at best: the floor (the work any converter of the file must do besides
// building rows, in one thread), how much more work the machine does with several threads busy, and the ceiling
// they give together.
// Targets (from the issue): ≥ 0.5× the JSON.parse baseline; peak RSS < 256 MB whatever the input size.
// Other sources add their own file (bench/convert-inspect.ts: a 50,000-sample .eval) using _convert-measure.ts.
import { createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { once } from 'node:events';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runChild, type ChildFigures } from './_convert-measure.js';
import { MAX_DEFAULT_JOBS } from '../src/convert/row-blocks.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');

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

/** A number Python holds as a float (written `1.0`, not `1`). */
class PyFloat {
  constructor(readonly value: number) {}
}

/** `json.dumps(value)` with Python's default separators (`", "`, `": "`) and ensure_ascii=False: lm-eval's writer. */
function pythonDumps(value: unknown): string {
  if (value instanceof PyFloat)
    return Number.isInteger(value.value) ? `${value.value}.0` : JSON.stringify(value.value);
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pythonDumps(v)}`)
      .join(', ')}}`;
  return JSON.stringify(value);
}

/**
 * A samples line as lm-eval 0.4 itself writes it (Python separators, non-ASCII kept), ~4 KB like the real files of
 * the reference data (3.7–8.3 KB a line): a dialogue task whose doc holds a list of turns and whose prompt is
 * chat-templated, with an emoji in one line of four.
 */
function pythonStyleLine(i: number): string {
  const turns = Array.from(
    { length: 6 },
    (_, k) =>
      `agent_${(k % 2) + 1}: ${k === 0 && i % 4 === 0 ? 'Hello! 🙂 ' : ''}Turn ${k} of dialogue ${i}, about the food, water and firewood packages and who needs them most.`,
  );
  const context = `Background: a negotiation for a camping trip over extra food, water and firewood.\nDialogue History:\n${turns.join('\n')}\nQuestion ${i}: which item does agent 1 think agent 2 values most?\nA. Water\nB. Food\nC. Firewood\nAnswer:`;
  const prompt = `<|im_start|>system\nYou are a careful assistant.${" Think about each party's stated needs.".repeat(20)}<|im_end|>\n<|im_start|>user\n${context}<|im_end|>\n<|im_start|>assistant\n`;
  const answer = 'ABC'[(i + (i % 5 === 0 ? 1 : 0)) % 3];
  return pythonDumps({
    doc_id: i,
    doc: { dialogue_id: `${i}-0`, dialogue: turns, prompt: context, choices: ['A', 'B', 'C'], gold: i % 3 },
    target: String(i % 3),
    arguments: {
      gen_args_0: {
        arg_0: prompt,
        arg_1: { until: ['<|im_end|>'], do_sample: false, temperature: new PyFloat(0) },
      },
    },
    resps: [[`The answer is ${answer}.`]],
    filtered_resps: [answer],
    filter: 'none',
    metrics: ['exact_match'],
    doc_hash: 'a'.repeat(64),
    prompt_hash: 'b'.repeat(64),
    target_hash: 'c'.repeat(64),
    exact_match: new PyFloat(i % 5 === 0 ? 0 : 1),
  });
}

/** The two shapes of generated samples file the benchmark converts. */
export const SHAPES = {
  compact: { label: 'compact JSON, ~2.2 KB a line', line: sampleLine },
  python: {
    label: "lm-eval's own writer (Python separators, non-ASCII), ~4 KB a line",
    line: pythonStyleLine,
  },
} as const;

export async function generate(
  dir: string,
  targetBytes: number,
  line: (i: number) => string = sampleLine,
): Promise<{ samples: string; bytes: number; lines: number }> {
  const samples = join(dir, `samples_${TASK}_${TS}.jsonl`);
  const out = createWriteStream(samples);
  let bytes = 0;
  let lines = 0;
  while (bytes < targetBytes) {
    let block = '';
    for (let k = 0; k < 1000; k++) block += `${line(lines++)}\n`;
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

/** The CLI bundle as `npm run build` ships it (scripts/bundle.mjs, with its worker files). */
async function cliBundle(): Promise<string> {
  const { bundleCli } = (await import(pathToFileURL(join(root, 'scripts', 'bundle.mjs')).href)) as {
    bundleCli(outdir: string): Promise<string>;
  };
  return bundleCli(join(here, '.data', 'bundle-convert'));
}

const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);
const median = (xs: number[]): number => sorted(xs)[xs.length >> 1];
const range = (xs: number[], digits: number): string =>
  `${sorted(xs)[0].toFixed(digits)}–${sorted(xs)[xs.length - 1].toFixed(digits)}`;

export async function run(): Promise<void> {
  const mb = Number(process.env.CONVERT_BENCH_MB ?? 512);
  const rounds = Number(process.env.CONVERT_BENCH_ROUNDS ?? 3);
  const shapes = (process.env.CONVERT_BENCH_SHAPES ?? 'compact,python').split(',') as (keyof typeof SHAPES)[];
  const cli = await cliBundle();
  for (const shape of shapes) {
    const dir = mkdtempSync(join(tmpdir(), 'evalkit-bench-convert-'));
    try {
      await measureShape(cli, dir, mb, rounds, shape);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

async function measureShape(
  cli: string,
  dir: string,
  mb: number,
  rounds: number,
  shape: keyof typeof SHAPES,
): Promise<void> {
  const { samples, bytes, lines } = await generate(dir, mb * 1024 * 1024, SHAPES[shape].line);
  const results = join(dir, `results_${TS}.json`);
  const size = bytes / 1024 / 1024;
  console.log(
    `lm-eval samples → EEE pair, ${SHAPES[shape].label}: generated ${lines} samples lines (${size.toFixed(0)} MB); ` +
      `${rounds} interleaved rounds, each in a fresh process; the converter is the bundled CLI ` +
      `(\`evalkit convert --format json\`)`,
  );
  const variants = [
    { label: 'evalkit convert --jobs auto (this thread and workers)', jobs: 'auto' },
    { label: 'evalkit convert --jobs 1 (one thread)', jobs: '1' },
  ];
  const base: ChildFigures[] = [];
  const conv: ChildFigures[][] = variants.map(() => []);
  const floor: ChildFigures[] = [];
  const together: number[] = [];
  const copies = Math.min(availableParallelism(), MAX_DEFAULT_JOBS);
  for (let r = 0; r < rounds; r++) {
    base.push(await runChild(['parse-jsonl', samples]));
    const floorOut = join(dir, 'floor.jsonl');
    floor.push(await runChild(['floor-jsonl', samples, floorOut]));
    rmSync(floorOut, { force: true });
    // `copies` baselines at once: how much more work the machine does with that many threads busy.
    const many = await Promise.all(Array.from({ length: copies }, () => runChild(['parse-jsonl', samples])));
    together.push((copies * base[r].seconds) / Math.max(...many.map((m) => m.seconds)));
    for (let v = 0; v < variants.length; v++) {
      const out = join(dir, `out-${r}-${v}`);
      const args = [cli, 'convert', results, '-o', out, '--jobs', variants[v].jobs, '--format', 'json'];
      conv[v].push(await runChild(args, join(here, '_convert-cli-child.mjs')));
      rmSync(out, { recursive: true, force: true });
    }
  }
  const wallRate = (f: ChildFigures): number => size / f.seconds;
  const cpuRate = (f: ChildFigures): number => size / (f.cpuSeconds as number);
  console.log(
    `  baseline (split + JSON.parse of the same bytes): ${median(base.map(wallRate)).toFixed(0)} MB/s wall ` +
      `(${range(base.map(wallRate), 0)}), ${median(base.map(cpuRate)).toFixed(0)} MB/s of CPU time, ` +
      `peak RSS ${Math.max(...base.map((b) => b.maxRssMb)).toFixed(0)} MB`,
  );
  for (let v = 0; v < variants.length; v++) {
    // Each round's conversion against the same round's baseline (a noisy moment hits both).
    const wall = conv[v].map((c, r) => wallRate(c) / wallRate(base[r]));
    const cpu = conv[v].map((c, r) => cpuRate(c) / cpuRate(base[r]));
    const rss = conv[v].map((c) => c.maxRssMb);
    console.log(
      `  ${variants[v].label}: ${median(conv[v].map(wallRate)).toFixed(0)} MB/s wall = ` +
        `${median(wall).toFixed(2)}× baseline (rounds ${range(wall, 2)}; target ≥ 0.5×); by CPU time ` +
        `${median(cpu).toFixed(2)}× (${range(cpu, 2)}); peak RSS ${range(rss, 0)} MB (target < 256 MB); ` +
        `${conv[v][0].rows} rows`,
    );
  }
  // The floor's work other than its fsync spread over the threads with the measured gain, its fsync after it: no
  // converter that also builds rows can be faster than this on this machine.
  const ceiling = floor.map((f, r) => {
    const sync = f.fsyncSeconds as number;
    return base[r].seconds / (sync + (f.seconds - sync) / together[r]);
  });
  const floorRatio = floor.map((f, r) => base[r].seconds / f.seconds);
  const syncShare = floor.map((f, r) => (f.fsyncSeconds as number) / base[r].seconds);
  console.log(
    `  floor, one thread (the baseline's parse, each prompt's sample_hash, an output as large as the input ` +
      `encoded, sha256'd, written and fsync'd; no row built): ${median(floorRatio).toFixed(2)}× baseline ` +
      `(rounds ${range(floorRatio, 2)}); its fsync alone takes ${median(syncShare).toFixed(2)}× the baseline's time`,
  );
  console.log(
    `  ${copies} baselines at once do ${median(together).toFixed(2)}× the work of one (rounds ` +
      `${range(together, 2)}) → ceiling on this machine ${median(ceiling).toFixed(2)}× (rounds ` +
      `${range(ceiling, 2)}): the floor's work spread over ${copies} threads with that gain, then its fsync; ` +
      `building the rows can only add to it`,
  );
  console.log(
    `  (wall time is what the target means; with N cores the threads can at most divide it by N. Load average ` +
      `${loadavg()[0].toFixed(1)} on ${availableParallelism()} CPUs.)`,
  );
}
