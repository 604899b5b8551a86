/**
 * `evalkit view PATH...`: the given files are ingested into a fresh store first, by the library function behind
 * `evalkit ingest`; what it rejected is reported on standard error, what it stored is served.
 */
import type { CliIO } from '../cli/context.js';
import { diagnosticLine } from '../cli/output/diagnostics.js';
import { createProgress } from '../cli/output/progress.js';
import { DataError } from '../errors.js';

const SHOWN = 20;

export async function ingestIntoTemporaryStore(file: string, paths: string[], io: CliIO): Promise<void> {
  const { openStore } = await import('../store/db.js');
  const { ingestPaths } = await import('../store/ingest.js');
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
