/**
 * Compaction of a lake (`evalkit lake compact DIR`) and its statistics (`evalkit lake stats DIR`).
 *
 * Each ingest adds one unit of files per partition (its run's parts of every table); after many ingests a partition
 * holds many small units. Compaction merges a partition's units into one new unit, each table's rows in one file
 * sorted by record (so a reader's filters keep only a record's row groups), without changing any reader's answer:
 *
 *  1. the new files are written first, into a staging folder no reader looks at (the heavy part, done while other
 *     writers may publish: compaction takes its own lock, `DIR/.evalkit-compact.lock`, not the writers');
 *  2. under the writers' lock, one publishing step: the manifest `_evalkit/compactions/<run>.json` (which units the
 *     new one replaces) is written, the new rows files renamed into place, then the new records file — from that
 *     rename on, readers read the new unit and ignore the replaced ones (lake-files.ts `replacedUnits`);
 *  3. still under the lock, the replaced units' files are removed, records first, then the manifest.
 *
 * A reader lists the lake until two listings agree (lake-files.ts `listLake`) and reads it again if a file it
 * listed is removed before it reads it, so it reads the old set or the new one, never both or neither. A kill at any
 * moment leaves a lake that reads the same: before step 2's records rename, the new files are rows without their
 * records file, which readers leave out; after it, the replaced units are ignored. The next compaction or ingest
 * completes what a killed one left (`finishCompactions`, under the writers' lock).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { writeFileAtomic } from '../io/atomic.js';
import { acquireLock } from '../io/lock.js';
import { pauseForTest } from '../io/test-pause.js';
import { loadDuckDb } from './db.js';
import {
  COMPACTIONS_DIR,
  listLake,
  partColumnsOver,
  PART_ORDER,
  replacedUnits,
  sqlString,
  unitOf,
  vetParts,
  type CompactionManifest,
  type LakePart,
} from './lake-files.js';
import { checkLakeDir, LAKE_TABLES, type LakeTable } from './lake-read.js';
import { finishCompactions, lockLake, removeDeadStaging, removeUnpublished, STAGING_PREFIX } from './lake.js';

export interface CompactOptions {
  /** A partition is compacted when it has at least this many units (runs) of files (default 2). */
  minUnits?: number;
  /** Told while compaction waits for a lock (as `ingest --lake`'s `onLakeWait`). */
  onWait?: (message: string) => void;
  /** Told of every file of the lake that is not its own or cannot be read (those are never merged). */
  onWarning?: (code: string, message: string) => void;
}

export interface CompactedPartition {
  partition: string;
  /** The units (runs) merged into the new one. */
  merged: number;
  run: string;
  files_before: number;
  files_after: number;
  bytes_before: number;
  bytes_after: number;
}

export interface CompactReport {
  partitions: CompactedPartition[];
  /** Partitions left as they were (a single unit, or units with a part that cannot be read). */
  unchanged: number;
}

const ignore = (): void => undefined;

const fileBytes = async (files: readonly string[]): Promise<number> =>
  (await Promise.all(files.map((f) => stat(f).then((s) => s.size)))).reduce((a, b) => a + b, 0);

/** Merges each partition's units of files into one (see above). */
export async function compactLake(dir: string, options: CompactOptions = {}): Promise<CompactReport> {
  const root = resolve(dir);
  await checkLakeDir(root, dir);
  const minUnits = Math.max(2, options.minUnits ?? 2);
  const compacting = await acquireLock(join(root, '.evalkit-compact'), 'lake compact');
  const staging = join(root, `${STAGING_PREFIX}${process.pid}-${randomUUID().slice(0, 8)}`);
  const { DuckDBInstance } = await loadDuckDb();
  const instance = await DuckDBInstance.create(':memory:');
  const c = await instance.connect();
  try {
    // What an earlier compaction or ingest left, first (under the writers' lock, briefly).
    const first = await lockLake(root, options.onWait);
    try {
      await finishCompactions(root);
      await removeUnpublished(root);
      await removeDeadStaging(root);
    } finally {
      first.release();
    }
    await mkdir(staging, { recursive: true });
    const listing = await listLake(root, LAKE_TABLES, options.onWarning ?? ignore);
    // Units with a part that cannot be read, or without their records file, are left as they are.
    const published = new Set(listing.parts.get('records')!.map(unitOf));
    const refused = new Set<string>();
    const good = new Map<LakeTable, LakePart[]>();
    for (const table of LAKE_TABLES) {
      const vetted = await vetParts(c, table, listing.parts.get(table)!, options.onWarning ?? ignore);
      for (const p of vetted.refused) refused.add(unitOf(p));
      good.set(table, vetted.parts);
    }
    const byPartition = new Map<string, Set<string>>();
    for (const part of good.get('records')!) {
      const unit = unitOf(part);
      if (!published.has(unit) || refused.has(unit)) continue;
      const runs = byPartition.get(part.partition) ?? new Set<string>();
      runs.add(part.run);
      byPartition.set(part.partition, runs);
    }
    const report: CompactReport = { partitions: [], unchanged: 0 };
    const planned: { partition: string; runs: string[]; run: string; old: LakePart[]; made: string[] }[] = [];
    for (const [partition, runs] of [...byPartition].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (runs.size < minUnits) {
        report.unchanged++;
        continue;
      }
      const run = randomUUID();
      const old = LAKE_TABLES.flatMap((t) =>
        good.get(t)!.filter((p) => p.partition === partition && runs.has(p.run)),
      );
      const made: string[] = [];
      for (const table of LAKE_TABLES) {
        const parts = old.filter((p) => good.get(table)!.includes(p));
        if (parts.length === 0) continue;
        const file = join(staging, table, partition, `part-${run}_0.parquet`);
        await mkdir(join(file, '..'), { recursive: true });
        // Parts an older evalkit wrote may lack a column (read as NULL: partColumnsOver).
        const { columns, mixed } = partColumnsOver(table, parts);
        await c.run(
          `COPY (SELECT ${[...columns.values()].join(', ')}
                 FROM read_parquet([${parts.map((p) => sqlString(p.file)).join(', ')}], hive_partitioning = false${mixed ? ', union_by_name = true' : ''})
                 ORDER BY ${PART_ORDER[table]})
           TO ${sqlString(file)} (FORMAT parquet, COMPRESSION zstd)`,
        );
        made.push(join(table, partition, `part-${run}_0.parquet`));
      }
      planned.push({ partition, runs: [...runs].sort(), run, old, made });
    }
    if (planned.length === 0) return report;
    // The one publishing step, under the writers' lock.
    const lock = await lockLake(root, options.onWait);
    try {
      for (const p of planned) {
        const manifest: CompactionManifest = { run: p.run, partitions: { [p.partition]: p.runs } };
        await mkdir(join(root, COMPACTIONS_DIR), { recursive: true });
        await writeFileAtomic(join(root, COMPACTIONS_DIR, `${p.run}.json`), `${JSON.stringify(manifest)}\n`);
        const bytesBefore = await fileBytes(p.old.map((o) => o.file));
        // Rows first, the records file last: the new unit is published by that one rename.
        const ordered = [
          ...p.made.filter((f) => !f.startsWith(`records`)),
          ...p.made.filter((f) => f.startsWith(`records`)),
        ];
        for (const file of ordered) {
          // EVALKIT_TEST_PAUSE_BEFORE_COMPACT_RECORDS=N: the N-th compaction waits before publishing its records.
          if (file.startsWith('records'))
            await pauseForTest('EVALKIT_TEST_PAUSE_BEFORE_COMPACT_RECORDS', 'paused-before-compact-records');
          await mkdir(join(root, file, '..'), { recursive: true });
          await rename(join(staging, file), join(root, file));
        }
        await pauseForTest('EVALKIT_TEST_PAUSE_BEFORE_COMPACT_REMOVE', 'paused-before-compact-remove');
        await finishCompactions(root);
        report.partitions.push({
          partition: p.partition,
          merged: p.runs.length,
          run: p.run,
          files_before: p.old.length,
          files_after: p.made.length,
          bytes_before: bytesBefore,
          bytes_after: await fileBytes(p.made.map((f) => join(root, f))),
        });
      }
    } finally {
      lock.release();
    }
    return report;
  } finally {
    c.closeSync();
    instance.closeSync();
    await rm(staging, { recursive: true, force: true });
    compacting.release();
  }
}

export interface LakeStatsRow {
  table: string;
  partition: string;
  parts: number;
  /** Units of publishing (an ingest's or a compaction's run) the parts belong to. */
  units: number;
  rows: number;
  bytes: number;
}

/** Parts, units, rows and bytes per table and partition of a lake (the lake's own parts, as a reader vets them). */
export async function lakeStats(
  dir: string,
  onWarning?: (code: string, message: string) => void,
): Promise<LakeStatsRow[]> {
  const root = resolve(dir);
  await checkLakeDir(root, dir);
  const { DuckDBInstance } = await loadDuckDb();
  const instance = await DuckDBInstance.create(':memory:');
  const c = await instance.connect();
  try {
    const skip = (file: string, why: string): void =>
      onWarning?.('store.lake-file-skipped', `${file} skipped: ${why}`);
    const listing = await listLake(root, LAKE_TABLES, skip);
    const replaced = replacedUnits(listing.manifests.values(), listing.parts.get('records')!);
    const rows: LakeStatsRow[] = [];
    for (const table of LAKE_TABLES) {
      const named = listing.parts.get(table)!.filter((p) => !replaced.has(unitOf(p)));
      const { parts } = await vetParts(c, table, named, skip);
      const counts = new Map<string, number>();
      if (parts.length > 0) {
        const read = await c.runAndReadAll(
          `SELECT file_name, num_rows::BIGINT AS n FROM parquet_file_metadata([${parts.map((p) => sqlString(p.file)).join(', ')}])`,
        );
        for (const r of read.getRowObjectsJson() as { file_name: string; n: string | number }[])
          counts.set(r.file_name, Number(r.n));
      }
      const partitions = [...new Set(parts.map((p) => p.partition))].sort();
      for (const partition of partitions) {
        const mine = parts.filter((p) => p.partition === partition);
        rows.push({
          table,
          partition,
          parts: mine.length,
          units: new Set(mine.map((p) => p.run)).size,
          rows: mine.reduce((n, p) => n + (counts.get(p.file) ?? 0), 0),
          bytes: await fileBytes(mine.map((p) => p.file)),
        });
      }
    }
    return rows;
  } finally {
    c.closeSync();
    instance.closeSync();
  }
}
