// `npm run bench -- query-stream`: `evalkit query ... --format csv` over a large result, streamed chunk by chunk,
// against the same rows materialised first (the library's runQuery: what query did before streaming), each in a
// child process of its own so that its peak RSS is its own. BENCH_QUERY_ROWS sets the row count (default 1,000,000).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const rows = Number(process.env.BENCH_QUERY_ROWS ?? 1_000_000);

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'evalkit-bench-query-'));
  try {
    const db = join(dir, 'store.duckdb');
    const { openStore } = await import('../src/store/db.js');
    (await openStore(db, { readOnly: false })).close();
    const sql = `SELECT range AS n, 'row ' || range AS s, range / 7.0 AS x FROM range(${rows})`;
    const measure = (mode: string): { seconds: number; bytes: number; maxRssMb: number } =>
      JSON.parse(
        execFileSync(
          process.execPath,
          ['--import', 'tsx', join(import.meta.dirname, '_query-child.ts'), db, mode, sql],
          {
            encoding: 'utf8',
          },
        ),
      );
    const materialised = measure('materialise');
    const streamed = measure('stream');
    const line = (name: string, m: typeof streamed): string =>
      `${name}: ${m.seconds.toFixed(1)} s, ${(m.bytes / 1e6).toFixed(0)} MB of CSV, peak RSS ${m.maxRssMb.toFixed(0)} MB`;
    console.log(`${rows.toLocaleString('en')} rows`);
    console.log(line('materialised (baseline)', materialised));
    console.log(line('streamed', streamed));
    console.log(
      `peak RSS streamed / materialised: ${(streamed.maxRssMb / materialised.maxRssMb).toFixed(2)}×; time: ${(streamed.seconds / materialised.seconds).toFixed(2)}×`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
