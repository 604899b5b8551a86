/**
 * `evalkit view PATH...`: the given files are ingested into a fresh store first, by the same library function as
 * `evalkit ingest`.
 */
import type { CliIO } from '../cli/context.js';
import { UsageError } from '../errors.js';

export async function ingestIntoTemporaryStore(file: string, paths: string[], io: CliIO): Promise<void> {
  void file;
  void paths;
  void io;
  throw new UsageError(
    'view.no-ingest',
    'this build cannot ingest paths yet: ingest them with `evalkit ingest` and pass --db',
  );
}
