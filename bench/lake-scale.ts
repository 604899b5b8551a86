// `npm run bench -- lake-scale`: the lake at scale (issue 42). Records of ITEMS binary instance rows each (one
// benchmark per record, MODELS models per benchmark, the same samples in every record of a benchmark), each record
// published as its own ingest (one part per table and record, as `ingest --lake` of one record at a time writes
// them). Measured, whole command, against the same records in a store file (the baseline of the same run, outputs
// compared byte for byte): `leaderboard --lake` and `compare --lake` (two models, one benchmark) on a lake of
// BENCHMARKS_SMALL benchmarks, and on one of BENCHMARKS_LARGE (the growth: the same compare on a lake 8× larger).
// Targets: each ≤ 1.0 s and peak RSS ≤ 400 MB on 32 records × 300,000 rows; the compare on the larger lake ≤ 1.3×
// the smaller's. LAKE_ITEMS (300000), LAKE_MODELS (4), LAKE_SMALL (1), LAKE_LARGE (8), BENCH_ROUNDS (3), LAKE_KEEP.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openStore } from '../src/store/db.js';
import { publish } from '../src/store/lake.js';
import { backfillResultItems } from '../src/store/result-items.js';
import { measureCommand } from './_whole-command.js';

const ITEMS = Number(process.env.LAKE_ITEMS ?? 300_000);
const MODELS = Number(process.env.LAKE_MODELS ?? 4);
const SMALL = Number(process.env.LAKE_SMALL ?? 1);
const LARGE = Number(process.env.LAKE_LARGE ?? 8);

/** The ingest id of record r (hex, as a lake's part names need). */
const runOf = (r: number): string => `00000000-0000-0000-0000-${r.toString(16).padStart(12, '0')}`;

/** A store of `benchmarks` × MODELS records, each ITEMS binary rows of its benchmark, each its own ingest. */
async function generate(path: string, benchmarks: number): Promise<void> {
  const store = await openStore(path, { readOnly: false });
  const c = store.connection;
  const records = `range(${MODELS}) t(m), range(${benchmarks}) u(b)`;
  const key = `'rk-' || b || '-' || m`;
  await c.run(`INSERT INTO records (record_key, content_hash, evaluation_id, schema_version, source_name, model_id, developer,
      retrieved_timestamp, origin_kind, origin_path, ingest_id, ingested_at, sample_count, raw)
    SELECT ${key}, ${key}, 'eval-' || b || '-' || m, '0.3.0', 'bench', 'org/model-' || m, 'org', '1700000000', 'eee',
           'bench', '00000000-0000-0000-0000-' || lpad(printf('%x', b * ${MODELS} + m), 12, '0'), now(), ${ITEMS}, '{}'
    FROM ${records}`);
  await c.run(`INSERT INTO results (record_key, result_index, evaluation_result_id, evaluation_name, metric_name,
      score_type, lower_is_better, score, raw)
    SELECT ${key}, 0, 'r' || b, 'bench-' || b, 'accuracy', 'binary', false, 0, '{}' FROM ${records}`);
  await c.run(`INSERT INTO samples (record_key, row_index, evaluation_result_id, evaluation_name, sample_id,
      sample_hash, score, is_correct, output_text, raw)
    SELECT ${key}, i, 'r' || b, 'bench-' || b, 'q' || i, sha256('b' || b || '-' || i),
           CASE WHEN (hash(m, b, i) % 1000) < 1000 * (0.5 + 0.4 * m / ${MODELS}) THEN 1.0 ELSE 0.0 END,
           (hash(m, b, i) % 1000) < 1000 * (0.5 + 0.4 * m / ${MODELS}), 'answer ' || i, '{}'
    FROM ${records}, range(${ITEMS}) v(i)`);
  await c.run(`UPDATE results SET score = s.mean FROM (
      SELECT record_key, avg(score) AS mean FROM samples GROUP BY ALL) s WHERE results.record_key = s.record_key`);
  await backfillResultItems(store);
  await c.run('CHECKPOINT');
  store.close();
}

/** The lake of the same records, each record published as its own run (one part per table and record). */
async function lakeOf(storePath: string, dir: string, records: number): Promise<void> {
  const store = await openStore(storePath, { readOnly: false });
  try {
    mkdirSync(join(dir, 'records'), { recursive: true });
    for (let r = 0; r < records; r++) {
      const staging = join(dir, `.evalkit-staging-bench-${r}`);
      await publish(store, dir, staging, runOf(r));
      rmSync(staging, { recursive: true, force: true });
    }
  } finally {
    store.close();
  }
}

const here = fileURLToPath(new URL('.', import.meta.url));

/** The CLI bundle as `npm run build` ships it, built into bench/.data/bundle. */
async function cliBundle(): Promise<string> {
  const { bundleCli } = (await import(pathToFileURL(join(here, '..', 'scripts', 'bundle.mjs')).href)) as {
    bundleCli(outdir: string): Promise<string>;
  };
  return bundleCli(join(here, '.data', 'bundle'));
}

/** Wall seconds, peak RSS (MB) and standard output of the whole command. */
function measured(cli: string, args: string[]): { seconds: number; rssMb: number; stdout: string } {
  const m = measureCommand(cli, args, true);
  return { ...m, rssMb: m.rssMb! };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The command on the store and on the lake in turn: medians of time and RSS; throws when outputs differ. */
function pair(cli: string, args: string[], db: string, lake: string, rounds: number) {
  const t = { db: [] as number[], lake: [] as number[], dbRss: [] as number[], lakeRss: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    const d = measured(cli, [...args, '--db', db]);
    const l = measured(cli, [...args, '--lake', lake]);
    if (d.stdout !== l.stdout) throw new Error(`evalkit ${args.join(' ')}: --lake and --db outputs differ`);
    t.db.push(d.seconds);
    t.lake.push(l.seconds);
    t.dbRss.push(d.rssMb);
    t.lakeRss.push(l.rssMb);
  }
  return { db: median(t.db), lake: median(t.lake), dbRss: median(t.dbRss), lakeRss: median(t.lakeRss) };
}

export async function run(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const dir = mkdtempSync(join(tmpdir(), 'evalkit-bench-lake-'));
  try {
    const cli = await cliBundle();
    const compareArgs = ['compare', 'org/model-0', 'org/model-1', '--benchmark', 'bench-0', '-f', 'json'];
    const lines: string[] = [];
    let smallCompare = 0;
    for (const benchmarks of [SMALL, LARGE]) {
      const records = benchmarks * MODELS;
      const db = join(dir, `store-${benchmarks}.duckdb`);
      const lake = join(dir, `lake-${benchmarks}`);
      const t0 = performance.now();
      await generate(db, benchmarks);
      await lakeOf(db, lake, records);
      console.log(
        `generated ${records} records × ${ITEMS.toLocaleString('en')} rows (${(records * ITEMS).toLocaleString('en')} instance rows, ` +
          `${benchmarks} benchmarks) as a store and a lake in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
      );
      const lb = pair(cli, ['leaderboard', '-f', 'json'], db, lake, rounds);
      const cmp = pair(cli, compareArgs, db, lake, rounds);
      if (benchmarks === SMALL) smallCompare = cmp.lake;
      for (const [name, m] of [
        ['leaderboard', lb],
        ['compare (2 models, 1 benchmark)', cmp],
      ] as const)
        lines.push(
          `${records} records (${(records * ITEMS).toLocaleString('en')} rows): ${name} --lake ${m.lake.toFixed(3)} s, ` +
            `${m.lakeRss.toFixed(0)} MB peak; --db ${m.db.toFixed(3)} s, ${m.dbRss.toFixed(0)} MB (outputs identical; medians of ${rounds})`,
        );
      if (benchmarks === LARGE)
        lines.push(
          `growth ${SMALL * MODELS} → ${records} records: compare --lake ${(cmp.lake / smallCompare).toFixed(2)}× (target ≤ 1.3×); ` +
            `leaderboard ${lb.lake <= 1 ? 'met' : 'MISSED'} ≤ 1.0 s, compare ${cmp.lake <= 1 ? 'met' : 'MISSED'} ≤ 1.0 s, ` +
            `RSS ${Math.max(lb.lakeRss, cmp.lakeRss) <= 400 ? 'met' : 'MISSED'} ≤ 400 MB`,
        );
      if (!process.env.LAKE_KEEP) rmSync(db, { force: true });
    }
    for (const line of lines) console.log(line);
    console.log(`load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} CPUs`);
  } finally {
    // LAKE_KEEP=1: the stores and lakes are kept (their folder printed), to profile a command on them.
    if (process.env.LAKE_KEEP) console.log(`kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
