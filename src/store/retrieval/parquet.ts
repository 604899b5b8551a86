/**
 * The retrieval tables in a Parquet export: `retrieval_gold/`, `retrieval_results/` and `retrieval_events/`, one
 * zstd file each, beside the record tables; and read back into a store (rows already stored are left as they are).
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Store } from '../db.js';
import { ensureRetrievalTables, hasRetrievalTables } from './ingest.js';
import { sqlStrings } from './tables.js';

export const RETRIEVAL_TABLES = ['retrieval_gold', 'retrieval_results', 'retrieval_events'] as const;
const KEY: Record<(typeof RETRIEVAL_TABLES)[number], string> = {
  retrieval_gold: 'row_key',
  retrieval_results: 'row_key',
  retrieval_events: 'event_key',
};

/** Writes each non-empty retrieval table to `dir/<table>/data_0.parquet`; the tables written, with their rows. */
export async function exportRetrievalTables(
  store: Store,
  dir: string,
): Promise<{ table: string; rows: number; files: number }[]> {
  if (!(await hasRetrievalTables(store))) return [];
  const written: { table: string; rows: number; files: number }[] = [];
  for (const table of RETRIEVAL_TABLES) {
    const [{ n }] = await store.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${table}`);
    if (n === 0) continue;
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, table), { recursive: true });
    await store.connection.run(
      `COPY (SELECT * FROM ${table} ORDER BY ${KEY[table]}) TO ${sqlStrings([join(dir, table, 'data_0.parquet')])}
         (FORMAT parquet, COMPRESSION zstd)`,
    );
    written.push({ table, rows: n, files: 1 });
  }
  return written;
}

/** Reads the retrieval tables of an export into the store; rows added per table. */
export async function readRetrievalExport(
  store: Store,
  dir: string,
): Promise<{ table: string; rows: number; added: number }[]> {
  const found: { table: string; rows: number; added: number }[] = [];
  for (const table of RETRIEVAL_TABLES) {
    const files = (await readdir(join(dir, table)).catch(() => [] as string[])).filter((f) =>
      f.endsWith('.parquet'),
    );
    if (files.length === 0) continue;
    await ensureRetrievalTables(store);
    const scan = `read_parquet([${sqlStrings(files.map((f) => join(dir, table, f)))}])`;
    if (table === 'retrieval_results') {
      // Metric columns the store does not have yet.
      const have = new Set(
        (await store.all<{ column_name: string }>(`DESCRIBE retrieval_results`)).map((c) => c.column_name),
      );
      for (const c of await store.all<{ column_name: string }>(`DESCRIBE SELECT * FROM ${scan}`))
        if (!have.has(c.column_name))
          await store.connection.run(
            `ALTER TABLE retrieval_results ADD COLUMN "${c.column_name.replace(/"/g, '""')}" DOUBLE`,
          );
    }
    const count = async () =>
      (await store.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${table}`))[0].n;
    const [{ n: rows }] = await store.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${scan}`);
    const before = await count();
    await store.connection.run(`INSERT INTO ${table} BY NAME SELECT * FROM ${scan} ON CONFLICT DO NOTHING`);
    found.push({ table, rows, added: (await count()) - before });
  }
  return found;
}
