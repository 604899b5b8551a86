// `npm run bench -- store`: `evalkit ingest` on 1,000,000 generated EEE instance rows (10 records of 100,000 rows,
// bench/_store-data.ts) against `validate --jobs 1` on the same files, measured in the same run (targets: ingest
// throughput ≥ 0.5× validate's, i.e. storing costs at most what validating costs; database ≤ 0.35× the JSONL).
// Both run in this process through the library calls the commands make. BENCH_STORE_QUESTIONS=N shrinks the input
// (N rows per record) for a quick try. The store it makes is the cached bench store the leaderboard/compare and
// viewer benches reuse (ensureBenchStore).
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBenchData, ensureBenchStore } from './_store-data.js';

const questions = Number(process.env.BENCH_STORE_QUESTIONS ?? 100_000);

export async function run(): Promise<void> {
  const data = ensureBenchData({ questions });
  const mb = data.jsonlBytes / 1e6;
  console.log(
    `input: ${data.rows.toLocaleString('en')} rows in ${data.samples.length} samples files, ${mb.toFixed(0)} MB JSONL`,
  );

  const { validatePaths } = await import('../src/validate/index.js');
  const v0 = performance.now();
  const verdict = await validatePaths([join(data.root, 'data')], { jobs: 1 });
  const validateSeconds = (performance.now() - v0) / 1000;
  if (verdict.summary.invalid > 0) throw new Error('the bench datastore is not valid');

  const stored = await ensureBenchStore({ questions, fresh: true });
  const ingestSeconds = stored.ingestSeconds;
  const dbBytes = statSync(stored.db).size;

  const rate = (s: number) => `${Math.round(data.rows / s).toLocaleString('en')} rows/s`;
  const ratio = validateSeconds / ingestSeconds;
  const size = dbBytes / data.jsonlBytes;
  console.log(
    `validate --jobs 1 (baseline): ${validateSeconds.toFixed(1)} s, ${rate(validateSeconds)}, ${(mb / validateSeconds).toFixed(0)} MB/s`,
  );
  console.log(
    `ingest: ${ingestSeconds.toFixed(1)} s, ${rate(ingestSeconds)}, ${(mb / ingestSeconds).toFixed(0)} MB/s`,
  );
  console.log(
    `ingest throughput / validate throughput: ${ratio.toFixed(2)}× (target ≥ 0.5×) ${ratio >= 0.5 ? 'met' : 'NOT met'}`,
  );
  console.log(
    `database ${(dbBytes / 1e6).toFixed(0)} MB / JSONL ${mb.toFixed(0)} MB = ${size.toFixed(3)}× (target ≤ 0.35×) ${size <= 0.35 ? 'met' : 'NOT met'}`,
  );
  console.log(`bench store for leaderboard/compare/view benches: ${stored.db}`);
}
