/**
 * The store `evalkit view` reads: `--db` opened read-only, or PATH... ingested first into a temporary store by the
 * library function behind `evalkit ingest` (what it rejected is reported on standard error, with its progress).
 *
 * The temporary store lives in `<tmp>/evalkit-view-store-<pid>-<random>/`. It is removed when the view stops, and
 * on SIGINT, SIGTERM or SIGHUP at any moment (during the ingest too); what a kill -9 leaves is swept by the next
 * `evalkit view PATH...`.
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataError, UsageError } from '../../errors.js';
import { isLeftover, removeOnExit, temporaryName } from '../../io/remove-on-exit.js';
import type { Store } from '../../store/db.js';
import type { CliIO } from '../context.js';
import { resolvePath, storeTargetOf, lakeWarnings } from '../options.js';
import { diagnosticLine } from '../output/diagnostics.js';
import { createProgress } from '../output/progress.js';

const PREFIX = 'evalkit-view-store-';
/** Rejections shown on standard error; the rest are counted. */
const SHOWN = 20;

export interface ViewStore {
  store: Store;
  /** Closes the store and removes a temporary one. */
  cleanup(): Promise<void>;
}

export async function openViewStore(
  db: string | undefined,
  paths: string[],
  io: CliIO,
  lake?: string,
): Promise<ViewStore> {
  // Loaded here, not when the CLI starts: DuckDB is only needed by the store commands.
  const { openStore } = await import('../../store/db.js');
  if (paths.length === 0) {
    const { openReadStore } = await import('../../store/open.js');
    const store = await openReadStore(storeTargetOf({ db, lake }, io), lakeWarnings(io));
    return { store, cleanup: async () => store.close() };
  }
  if (db || lake)
    throw new UsageError('usage.conflict', 'give either --db, --lake or paths to ingest, not several');
  await sweepLeftovers();
  const dir = join(tmpdir(), temporaryName(PREFIX));
  await mkdir(dir, { mode: 0o700 });
  const removal = removeOnExit(dir);
  try {
    const file = join(dir, 'view.duckdb');
    await ingestInto(
      file,
      paths.map((p) => resolvePath(io.cwd, p)),
      io,
    );
    const store = await openStore(file, { readOnly: true });
    return {
      store,
      cleanup: async () => {
        store.close();
        removal.remove();
      },
    };
  } catch (error) {
    removal.remove();
    throw error;
  }
}

/** Temporary stores of `evalkit view` runs that were killed (their process is gone). */
async function sweepLeftovers(): Promise<void> {
  for (const name of await readdir(tmpdir()).catch(() => [] as string[])) {
    if (isLeftover(name, PREFIX)) await rm(join(tmpdir(), name), { recursive: true, force: true });
  }
}

async function ingestInto(file: string, paths: string[], io: CliIO): Promise<void> {
  const { openStore } = await import('../../store/db.js');
  const { ingestPaths } = await import('../../store/ingest.js');
  const store = await openStore(file, { readOnly: false });
  const progress = createProgress(io);
  try {
    const result = await ingestPaths(store, paths, {
      cwd: io.cwd,
      onProgress: (p) => progress.update(p.bytesDone, p.bytesTotal, `${p.records} records`),
    });
    progress.done();
    for (const d of result.diagnostics.filter((x) => x.severity === 'error').slice(0, SHOWN))
      io.stderr.write(`${diagnosticLine(d)}\n`);
    for (const i of result.items)
      if (i.status === 'rejected' && i.reason) io.stderr.write(`${i.source}: not stored: ${i.reason}\n`);
    if (result.summary.records === 0 && result.summary.skipped === 0) {
      throw new DataError(
        'view.nothing-stored',
        `nothing to show: no record of ${paths.join(', ')} could be stored`,
      );
    }
  } finally {
    progress.done();
    store.close();
  }
}
