// `npm run bench -- store`: the store as it grows. Records 1..N of a generated EEE datastore (bench/_store-data.ts:
// Q instance rows per record, ~1.5 KB rows) are ingested one at a time into one store, each by `evalkit ingest` in
// its own process, beside `evalkit validate --jobs 1` of the same record's files measured just before it in the same
// run (the baseline: storing should cost at most twice what validating costs). Each step runs both twice and keeps
// the faster run (the ingest once into a copy of the store as it was, once into the store). For each record: ingest and validate
// seconds, their ratio, the k-th ingest against the 1st, the store's bytes against the JSONL bytes so far, and the
// ingest's peak RSS. Then `leaderboard` and `compare` on the final store, whole command (a fresh process each).
// Targets: k-th ingest within 15% of the 1st; ingest throughput ≥ 0.5× validate's; store ≤ 0.35× the JSONL; peak
// RSS < 1 GB; leaderboard and compare < 1 s.
// Parameters (environment): BENCH_STORE_QUESTIONS rows per record (default 300,000), BENCH_STORE_MODELS records
// (default 10), BENCH_STORE_REASONING words of reasoning per output (default 90: ~1.5 KB rows).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureBenchData } from './_store-data.js';
import { runCommand } from './_whole-command.js';

const here = dirname(fileURLToPath(import.meta.url));
const questions = Number(process.env.BENCH_STORE_QUESTIONS ?? 300_000);
const models = Number(process.env.BENCH_STORE_MODELS ?? 10);
const reasoningWords = Number(process.env.BENCH_STORE_REASONING ?? 90);

interface ChildReport {
  seconds: number;
  /** CPU seconds of every thread of the process: far less sensitive than wall time to other load on the machine. */
  cpuSeconds: number;
  code: number;
  rssMb: number;
  out: string;
}

/** `evalkit <args>` in a child process on the CLI bundle: time inside the command, exit code, peak RSS. */
function child(cli: string, args: string[]): ChildReport {
  const r = spawnSync(process.execPath, [join(here, '_store-child.mjs'), cli, ...args], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const last = r.stderr.trim().split('\n').pop() ?? '';
  let report: ChildReport;
  try {
    report = JSON.parse(last) as ChildReport;
  } catch {
    throw new Error(`evalkit ${args.join(' ')} crashed: ${r.stderr.slice(-4000)}`);
  }
  if (report.code !== 0) throw new Error(`evalkit ${args.join(' ')} exited ${report.code}: ${report.out}`);
  return report;
}

/** The run that took the least wall time. */
const fastest = (runs: ChildReport[]): ChildReport => runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));

/** The whole command as a user runs it: wall seconds. */
const wall = (cli: string, args: string[]): number => runCommand(cli, args)[0];

const fileBytes = (path: string): number => (existsSync(path) ? statSync(path).size : 0);

export async function run(): Promise<void> {
  const data = ensureBenchData({ models, questions, reasoningWords });
  const { bundleCli } = (await import(pathToFileURL(join(here, '..', 'scripts', 'bundle.mjs')).href)) as {
    bundleCli(outdir: string): Promise<string>;
  };
  const cli = await bundleCli(join(here, '.data', 'bundle'));
  const db = `${data.root}-growing.duckdb`;
  rmSync(db, { force: true });
  rmSync(`${db}.wal`, { force: true });
  console.log(
    `${models} records × ${questions.toLocaleString('en')} rows, ${(data.jsonlBytes / 1e6).toFixed(0)} MB JSONL ` +
      `(${Math.round(data.jsonlBytes / data.rows)} bytes a row); load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} CPUs`,
  );
  console.log(
    'k  | validate --jobs 1 | ingest  | ingest/validate throughput | k-th/1st | store MB / JSONL MB | peak RSS',
  );
  let first = 0;
  let firstCpu = 0;
  let jsonl = 0;
  const failures: string[] = [];
  const costs: number[] = [];
  for (let k = 0; k < models; k++) {
    const aggregate = data.aggregates[k]!;
    const samples = data.samples[k]!;
    jsonl += statSync(samples).size;
    const validate = fastest([0, 1].map(() => child(cli, ['validate', '--jobs', '1', aggregate, samples])));
    // The same ingest twice, into a copy of the store as it is and into the store itself: the faster one is the
    // step's cost (the same work varies by a third between runs on a shared machine, store or no store).
    const retry = `${db}.retry`;
    for (const suffix of ['', '.wal']) if (existsSync(db + suffix)) copyFileSync(db + suffix, retry + suffix);
    const runs = [retry, db].map((path) => child(cli, ['ingest', '--db', path, '--no-progress', aggregate]));
    for (const suffix of ['', '.wal']) rmSync(retry + suffix, { force: true });
    const ingest = { ...fastest(runs), rssMb: Math.max(...runs.map((r) => r.rssMb)) };
    costs.push(ingest.seconds);
    if (k === 0) {
      first = ingest.seconds;
      firstCpu = ingest.cpuSeconds;
    }
    const storeBytes = fileBytes(db) + fileBytes(`${db}.wal`);
    const throughput = validate.seconds / ingest.seconds;
    const growth = ingest.seconds / first;
    const size = storeBytes / jsonl;
    if (throughput < 0.5) failures.push(`record ${k + 1}: ingest/validate ${throughput.toFixed(2)}× < 0.5×`);
    if (growth > 1.15) failures.push(`record ${k + 1}: ${growth.toFixed(2)}× the 1st ingest`);
    if (size > 0.35) failures.push(`record ${k + 1}: store ${size.toFixed(3)}× the JSONL`);
    if (ingest.rssMb >= 1024) failures.push(`record ${k + 1}: peak RSS ${ingest.rssMb.toFixed(0)} MB`);
    console.log(
      `${String(k + 1).padEnd(2)} | ${validate.seconds.toFixed(1).padStart(6)} s          | ${ingest.seconds.toFixed(1).padStart(5)} s | ` +
        `${throughput.toFixed(2).padStart(5)}×                     | ${growth.toFixed(2)}×    | ` +
        `${(storeBytes / 1e6).toFixed(0).padStart(5)} / ${(jsonl / 1e6).toFixed(0).padStart(5)} = ${size.toFixed(3)}× | ` +
        `${ingest.rssMb.toFixed(0)} MB (validate ${validate.rssMb.toFixed(0)} MB) | CPU: ingest ` +
        `${ingest.cpuSeconds.toFixed(1)} s, validate ${validate.cpuSeconds.toFixed(1)} s, ` +
        `ratio ${(validate.cpuSeconds / ingest.cpuSeconds).toFixed(2)}×, k-th/1st ${(ingest.cpuSeconds / firstCpu).toFixed(2)}×`,
    );
  }
  // Does the cost grow with the store? The least-squares slope of the ingest seconds over k, against their mean.
  const ks = costs.map((_, k) => k + 1);
  const meanK = ks.reduce((a, b) => a + b, 0) / ks.length;
  const meanCost = costs.reduce((a, b) => a + b, 0) / costs.length;
  const slope =
    ks.reduce((sum, k, i) => sum + (k - meanK) * (costs[i]! - meanCost), 0) /
    ks.reduce((sum, k) => sum + (k - meanK) ** 2, 0);
  console.log(
    `trend of the ingest cost over k: ${slope >= 0 ? '+' : ''}${slope.toFixed(3)} s per record ` +
      `(${((100 * slope) / meanCost).toFixed(1)}% of the mean ${meanCost.toFixed(1)} s per record)`,
  );
  // Whole commands three times each: the median is the figure, the fastest beside it.
  const thrice = (args: string[]): [number, number] => {
    const times = [0, 1, 2].map(() => wall(cli, args)).sort((a, b) => a - b);
    return [times[1]!, times[0]!];
  };
  const show = ([median, best]: [number, number]): string =>
    `${median.toFixed(2)} s (fastest ${best.toFixed(2)} s)`;
  const startup = thrice(['--version']);
  const leaderboard = thrice(['leaderboard', '--db', db]);
  const compare = thrice([
    'compare',
    'bench-lab/model-00',
    `bench-lab/model-${String(models - 1).padStart(2, '0')}`,
    '--db',
    db,
  ]);
  console.log(
    `on the final store (${(data.rows / 1e6).toFixed(1)}M rows), whole command, median of 3: leaderboard ` +
      `${show(leaderboard)}, compare ${show(compare)} (baseline: \`evalkit --version\` ${show(startup)})`,
  );
  if (leaderboard[0] >= 1) failures.push(`leaderboard ${leaderboard[0].toFixed(2)} s`);
  if (compare[0] >= 1) failures.push(`compare ${compare[0].toFixed(2)} s`);
  console.log(failures.length === 0 ? 'targets: all met' : `targets NOT met: ${failures.join('; ')}`);
}
