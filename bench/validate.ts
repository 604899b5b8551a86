// `npm run bench -- validate`: throughput of `evalkit validate` on a generated EEE instance-level JSONL file
// (≥ 200 MB of realistic rows, ~1% invalid), against raw JSON.parse over the same lines measured in the same run.
// Targets (from the issue): 1 job ≥ 0.8× the baseline, 2 jobs ≥ 1.4× the baseline, peak RSS < 256 MB on 1 GB.
// BENCH_SCALE=5 makes the file ~1 GB.
import { spawn } from 'node:child_process';
import {
  closeSync,
  createReadStream,
  existsSync,
  mkdirSync,
  openSync,
  renameSync,
  statSync,
  writeSync,
} from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sampleHash } from '../src/formats/eee/sample-hash.js';
import { createRng } from '../src/metrics/stats/rng.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');

const WORDS = (
  'the of and to in is that for it as was with be by on not he this are or his from at which but have an they you ' +
  'were her she there been one all we their has would when if so no what up out about who them do into more time ' +
  'model answer question reasoning because therefore evidence “quoted” café naïve 数学 λ-calculus equation 42 3.14'
).split(' ');

function text(next: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    out.push(WORDS[Math.floor(next() * WORDS.length)]);
    if (next() < 0.08) out.push(next() < 0.5 ? '\n' : '"quote"');
  }
  return out.join(' ');
}

function row(i: number, next: () => number): string {
  const choices = ['A', 'B', 'C', 'D'];
  const reference = [choices[i % 4]];
  const raw = `Question ${i}: ${text(next, 80 + Math.floor(next() * 300))}\n${choices.map((c) => `${c}. ${text(next, 6)}`).join('\n')}\nAnswer:`;
  const answer = choices[Math.floor(next() * 4)];
  const doc: Record<string, unknown> = {
    schema_version: '0.3.0',
    evaluation_id: 'bench-eval-0001',
    model_id: 'acme/bench-7b',
    evaluation_name: 'mmlu_bench',
    sample_id: `mmlu_${i}`,
    sample_hash: sampleHash({ raw, reference }),
    interaction_type: 'single_turn',
    input: { raw, reference, choices },
    output: {
      raw: [`${text(next, 20 + Math.floor(next() * 60))} The answer is ${answer}.`],
      reasoning_trace: null,
    },
    answer_attribution: [
      {
        turn_idx: 0,
        source: 'output.raw',
        extracted_value: answer,
        extraction_method: 'regex',
        is_terminal: true,
      },
    ],
    evaluation: { score: answer === reference[0] ? 1 : 0, is_correct: answer === reference[0] },
    token_usage: {
      input_tokens: 300 + (i % 200),
      output_tokens: 40 + (i % 30),
      total_tokens: 340 + (i % 230),
    },
    performance: { latency_ms: 100 + next() * 900, time_to_first_token_ms: null, generation_time_ms: null },
  };
  const fault = next();
  if (fault < 0.004) delete doc.evaluation;
  else if (fault < 0.007) (doc.evaluation as Record<string, unknown>).score = 'high';
  else if (fault < 0.009) doc.interaction_type = 'single-turn';
  else if (fault < 0.01) return JSON.stringify(doc).replace('"model_id":', '"model_id":"dup","model_id":');
  return JSON.stringify(doc);
}

export function ensureData(targetBytes: number): string {
  const dir = join(here, '.data');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `eee-instances-${Math.round(targetBytes / 1e6)}MB.jsonl`);
  if (existsSync(path) && statSync(path).size >= targetBytes) return path;
  const started = Date.now();
  const fd = openSync(`${path}.tmp`, 'w');
  const next = createRng(20261121);
  let written = 0;
  let buf: string[] = [];
  let bufLen = 0;
  for (let i = 0; written + bufLen < targetBytes; i++) {
    const line = `${row(i, next)}\n`;
    buf.push(line);
    bufLen += line.length;
    if (bufLen > 4_000_000) {
      written += writeSync(fd, buf.join(''));
      buf = [];
      bufLen = 0;
    }
  }
  written += writeSync(fd, buf.join(''));
  closeSync(fd);
  // rename last, so an interrupted generation is not mistaken for a complete file
  renameSync(`${path}.tmp`, path);
  console.log(
    `generated ${path} (${(statSync(path).size / 1e6).toFixed(0)} MB) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return path;
}

/** Baseline: the same file read with a 1 MiB stream, split at newlines, and JSON.parse on every line. */
async function baseline(path: string): Promise<{ seconds: number; cpuSeconds: number; lines: number }> {
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  let lines = 0;
  let carry: Buffer | undefined;
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    const data = carry ? Buffer.concat([carry, chunk]) : chunk;
    let start = 0;
    let nl = data.indexOf(0x0a);
    while (nl !== -1) {
      if (nl > start) {
        JSON.parse(data.toString('utf8', start, nl));
        lines++;
      }
      start = nl + 1;
      nl = data.indexOf(0x0a, start);
    }
    carry = start < data.length ? Buffer.from(data.subarray(start)) : undefined;
  }
  if (carry && carry.length > 0) {
    JSON.parse(carry.toString('utf8'));
    lines++;
  }
  const cpu = process.cpuUsage(cpuStart);
  return { seconds: (performance.now() - started) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6, lines };
}

/** The baseline's loop over a byte range [start, end), skipping the partial line at the start; run in a worker. */
const RANGE_PARSER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createReadStream } = require('node:fs');
(async () => {
  const { path, start: from, end } = workerData;
  let carry;
  let skip = from > 0;
  let lines = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024, start: from, end: end - 1 })) {
    const data = carry ? Buffer.concat([carry, chunk]) : chunk;
    let start = 0;
    let nl = data.indexOf(0x0a);
    while (nl !== -1) {
      if (skip) skip = false;
      else if (nl > start) { JSON.parse(data.toString('utf8', start, nl)); lines++; }
      start = nl + 1;
      nl = data.indexOf(0x0a, start);
    }
    carry = start < data.length ? Buffer.from(data.subarray(start)) : undefined;
  }
  parentPort.postMessage(lines);
})();
`;

/**
 * What two threads of plain JSON.parse reach on this machine: the file halved at a byte offset (the line that
 * straddles the cut is skipped by the second half — a negligible share), both halves parsed at once. This is the
 * ceiling for --jobs 2 on a shared machine, measured in the same run.
 */
async function parallelBaseline(path: string, size: number): Promise<{ seconds: number }> {
  const { Worker } = await import('node:worker_threads');
  const started = performance.now();
  const half = Math.floor(size / 2);
  await Promise.all(
    [
      [0, half],
      [half, size],
    ].map(
      ([start, end]) =>
        new Promise<void>((done, fail) => {
          const w = new Worker(RANGE_PARSER, { eval: true, workerData: { path, start, end } });
          w.once('message', () => void w.terminate().then(() => done()));
          w.once('error', fail);
        }),
    ),
  );
  return { seconds: (performance.now() - started) / 1000 };
}

interface ChildResult {
  code: number;
  seconds: number;
  /** CPU seconds of the whole process (its worker threads included) during the command. */
  cpuSeconds: number;
  wallSeconds: number;
  maxRssMb: number;
  summary: { documents: number; invalid: number; errors: number };
}

/** The CLI bundle as `npm run build` ships it (scripts/bundle.mjs), built into bench/.data/bundle. */
async function cliBundle(): Promise<string> {
  const { bundleCli } = (await import(pathToFileURL(join(root, 'scripts', 'bundle.mjs')).href)) as {
    bundleCli(outdir: string): Promise<string>;
  };
  return bundleCli(join(here, '.data', 'bundle'));
}

let bundled: string | undefined;

async function runValidate(
  path: string,
  jobs: number,
  extra: string[] = [],
  bundle?: string,
): Promise<ChildResult> {
  bundled ??= await cliBundle();
  const cli = bundle ?? bundled;
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [join(here, '_validate-child.mjs'), cli, path, String(jobs), ...extra],
      {
        cwd: root,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', () => {
      const last = err.trim().split('\n').pop() ?? '';
      try {
        resolvePromise({ ...JSON.parse(last), wallSeconds: (performance.now() - started) / 1000 });
      } catch {
        reject(new Error(`validate child failed: ${err.slice(-2000)}`));
      }
    });
  });
}

const loadAverage = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];
const range = (xs: number[], digits: number): string =>
  `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

interface Timing {
  /** Wall seconds for the whole file. */
  seconds: number;
  /** CPU seconds (all threads), when measured. */
  cpuSeconds?: number;
}

interface Contender {
  label: string;
  time: () => Promise<Timing>;
  /** The issue's target, as a ratio to the baseline. */
  target?: number;
  ratios: number[];
  /** The baseline's CPU seconds over the contender's, per round. */
  cpuRatios: number[];
  rates: number[];
}

/**
 * Interleaved rounds: each round times the baseline and then every contender once, and each contender's ratio is
 * taken to the baseline of its own round, so a slow moment of this shared machine weighs on both sides alike.
 * Prints the median ratio over the rounds and their range.
 */
export async function run(): Promise<void> {
  const scale = Number(process.env.BENCH_SCALE ?? '1') || 1;
  const rounds = Math.max(1, Number(process.env.BENCH_REPEATS ?? '5') || 5);
  const path = ensureData(200e6 * scale);
  const size = statSync(path).size;
  const mb = size / 1e6;
  console.log(
    `file: ${mb.toFixed(0)} MB; ${cpus().length} CPUs, load average ${loadAverage()} (1/5/15 min; figures are noisy when loaded)`,
  );
  console.log(
    `${rounds} interleaved rounds (BENCH_REPEATS changes the count); each ratio is to the baseline of its own round: median [range]`,
  );
  let rss = 0;
  let lines = 0;
  const summaries: string[] = [];
  const startup: number[] = [];
  const validator =
    (jobs: number, extra: string[] = [], bundle?: string) =>
    async (): Promise<Timing> => {
      const r = await runValidate(path, jobs, extra, bundle);
      rss = Math.max(rss, r.maxRssMb);
      startup.push(r.wallSeconds - r.seconds);
      const line = `${r.summary.documents} documents, ${r.summary.invalid} invalid (exit ${r.code})`;
      if (!summaries.includes(line)) summaries.push(line);
      return { seconds: r.seconds, cpuSeconds: r.cpuSeconds };
    };
  const contenders: Contender[] = [
    {
      label: 'reference JSON.parse on 2 threads (the file halved; the ceiling for --jobs 2 here)',
      time: async () => ({ seconds: (await parallelBaseline(path, size)).seconds }),
    },
    { label: 'validate --jobs 1', time: validator(1), target: 0.8 },
    { label: 'validate --jobs 2', time: validator(2), target: 1.4 },
    // --schema-only: the validate engine alone (strict JSON + detection + Ajv), without the formats' cross-field
    // rules and the checks across files.
    { label: 'validate --jobs 1 --schema-only', time: validator(1, ['--schema-only']), target: 0.8 },
    { label: 'validate --jobs 2 --schema-only', time: validator(2, ['--schema-only']), target: 1.4 },
    // VALIDATE_BENCH_OTHER=path/to/cli.mjs: another build's bundle in the same rounds (e.g. main's, before a change).
    ...(process.env.VALIDATE_BENCH_OTHER
      ? [
          {
            label: 'other build: validate --jobs 1',
            time: validator(1, [], process.env.VALIDATE_BENCH_OTHER),
          },
          {
            label: 'other build: validate --jobs 2',
            time: validator(2, [], process.env.VALIDATE_BENCH_OTHER),
          },
        ]
      : []),
  ].map((c) => ({ ...c, ratios: [], cpuRatios: [], rates: [] }));
  const baseRates: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const base = await baseline(path);
    lines = base.lines;
    baseRates.push(mb / base.seconds);
    for (const c of contenders) {
      const { seconds, cpuSeconds } = await c.time();
      c.rates.push(mb / seconds);
      c.ratios.push(mb / seconds / (mb / base.seconds));
      if (cpuSeconds !== undefined) c.cpuRatios.push(base.cpuSeconds / cpuSeconds);
    }
  }
  console.log(
    `baseline  JSON.parse per line (stream + split + parse): ${median(baseRates).toFixed(0)} MB/s ` +
      `[${range(baseRates, 0)}] (${lines} lines)`,
  );
  for (const c of contenders) {
    const m = median(c.ratios);
    const verdict =
      c.target === undefined
        ? ''
        : m >= c.target
          ? ` ≥ ${c.target}× target: met`
          : ` < ${c.target}× target: NOT met`;
    // By CPU time (all threads): the work done per byte, steadier than wall time on a loaded machine.
    const cpu =
      c.cpuRatios.length > 0
        ? `; by CPU time ${median(c.cpuRatios).toFixed(2)}× [${range(c.cpuRatios, 2)}]`
        : '';
    console.log(
      `${c.label}: ${median(c.rates).toFixed(0)} MB/s = ${m.toFixed(2)}× baseline [${range(c.ratios, 2)}]${verdict}${cpu}`,
    );
  }
  console.log(`validate verdicts: ${summaries.join('; ')}`);
  console.log(
    `not in the figures above: process start-up and module loading, ${median(startup).toFixed(2)} s per run (median)`,
  );
  console.log(
    `peak RSS: ${rss.toFixed(0)} MB on ${mb.toFixed(0)} MB (target < 256 MB on a 1 GB file${scale >= 5 ? '' : '; BENCH_SCALE=5 for 1 GB'})`,
  );
  console.log(`load average after: ${loadAverage()}`);
}
