/**
 * DuckDB settings of a store, given when the database is opened (they hold for that process only; nothing is
 * written to the file).
 *
 * - `max_vacuum_tasks = 0` (writers): a checkpoint otherwise merges the partly filled row groups at the end of
 *   `samples` (each ingested record ends in one) by rewriting them, so every other ingest rewrote the previous
 *   record's tail rows and the freed blocks stayed in the file: ingest cost and file size grew in steps with the
 *   store. Without it each checkpoint writes only the new rows. Row groups of deleted rows are still dropped.
 * - `memory_limit` (writers): DuckDB's default is 80% of the machine's memory, and its bulk-insert write buffer is a share of
 *   that, so one record of a few hundred MB of JSONL was held whole before being written. A fixed limit keeps an
 *   ingest's memory flat whatever the record's size; DuckDB spills what does not fit to its temp directory.
 * - `threads = 1` (writers): while DuckDB reads a record's JSONL into `samples`, evalkit validates the same file on
 *   the main thread. With DuckDB's default (a thread per core) the three busy threads shared two cores, and the
 *   same ingest took either its usual time or half as long again, by chance. One DuckDB thread beside the
 *   validator keeps an ingest's cost the same each time. Once the rows are in, the writer lets DuckDB use every
 *   core for the rest of the record's transaction (write.ts).
 */
export const STORE_WRITER_THREADS = 1;
export const STORE_MEMORY_LIMIT = '512MB';

/** The settings a store is opened with (readers keep DuckDB's defaults). */
export function storeSettings(readOnly: boolean): Record<string, string> {
  return readOnly
    ? {}
    : { max_vacuum_tasks: '0', memory_limit: STORE_MEMORY_LIMIT, threads: String(STORE_WRITER_THREADS) };
}
