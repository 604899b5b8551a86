/**
 * One run, one record: copies of a run (the same source run id, e.g. an Inspect log as it was while running and
 * once finished) are kept as the most complete copy only, whatever the order they are ingested in, in one ingest
 * or several. A stored partial copy is replaced by a more complete one inside the transaction that stores the
 * latter; a complete copy is never replaced by a partial one. Two records never share an evaluation_id: a record
 * whose evaluation_id is stored with other content replaces it only when it is the more complete copy of the same
 * run, else it is not stored.
 *
 * The run identity is what the converters write in `eval_library.additional_details` (`source_run_id`,
 * `run_status`, `scored_samples`, see src/convert/identity.ts). The stored identities are read once per ingest
 * (one scan) and kept up to date as records are added and replaced.
 */
import { compareCompleteness, runIdentityOf, type RunIdentity } from '../convert/identity.js';
import type { Diagnostic } from '../diagnostics.js';
import type { Store } from './db.js';
import type { Json } from '../io/json-value.js';

interface StoredRun {
  recordKey: string;
  evaluationId: string;
  /** `<eval library>\u0000<source_run_id>`, when the record states a run identity. */
  runKey?: string;
  run?: RunIdentity;
}

/** What to do with a record about to be stored. */
export type RunVerdict =
  { action: 'store'; replaces: StoredRun[] } | { action: 'keep-stored'; stored: StoredRun; reason: string };

const runKeyOf = (aggregate: Json, run: RunIdentity | undefined): string | undefined => {
  if (!run) return undefined;
  const lib = aggregate.eval_library;
  const name = lib && typeof lib === 'object' && typeof lib.name === 'string' ? lib.name : '';
  return `${name}\u0000${run.sourceRunId}`;
};

const describe = (run: RunIdentity | undefined): string =>
  run ? `${run.status}, ${run.scoredSamples} scored samples` : 'no run identity';

/** The stored records by evaluation_id and by run, for one ingest. */
export class RunIndex {
  private loaded = false;
  private readonly byEvaluationId = new Map<string, StoredRun>();
  private readonly byRun = new Map<string, StoredRun[]>();

  constructor(private readonly store: Store) {}

  private async load(): Promise<void> {
    if (this.loaded) return;
    this.loaded = true;
    const rows = await this.store.all<{ record_key: string; evaluation_id: string; lib: any }>(
      `SELECT record_key, evaluation_id,
         json_extract(raw, '$.eval_library') AS lib
       FROM records ORDER BY ingested_at, record_key`,
    );
    for (const r of rows) {
      const lib = typeof r.lib === 'string' ? JSON.parse(r.lib) : r.lib;
      this.remember(r.record_key, r.evaluation_id, { eval_library: lib ?? undefined });
    }
  }

  private remember(recordKey: string, evaluationId: string, aggregate: Json): void {
    const run = runIdentityOf(aggregate);
    const stored: StoredRun = { recordKey, evaluationId, run, runKey: runKeyOf(aggregate, run) };
    if (!this.byEvaluationId.has(evaluationId)) this.byEvaluationId.set(evaluationId, stored);
    if (stored.runKey) {
      const list = this.byRun.get(stored.runKey) ?? [];
      list.push(stored);
      this.byRun.set(stored.runKey, list);
    }
  }

  private forget(stored: StoredRun): void {
    if (this.byEvaluationId.get(stored.evaluationId)?.recordKey === stored.recordKey)
      this.byEvaluationId.delete(stored.evaluationId);
    if (stored.runKey) {
      const list = (this.byRun.get(stored.runKey) ?? []).filter((s) => s.recordKey !== stored.recordKey);
      if (list.length > 0) this.byRun.set(stored.runKey, list);
      else this.byRun.delete(stored.runKey);
    }
  }

  /**
   * Whether a new record (not already stored with the same content) goes in, and which stored copies of its run
   * (or holders of its evaluation_id) it replaces.
   */
  async verdict(aggregate: Json): Promise<RunVerdict> {
    await this.load();
    const run = runIdentityOf(aggregate);
    const runKey = runKeyOf(aggregate, run);
    const evaluationId = String(aggregate.evaluation_id ?? '');
    const rivals = new Map<string, StoredRun>();
    for (const s of runKey ? (this.byRun.get(runKey) ?? []) : []) rivals.set(s.recordKey, s);
    const sameId = this.byEvaluationId.get(evaluationId);
    if (sameId) rivals.set(sameId.recordKey, sameId);
    const replaces: StoredRun[] = [];
    for (const stored of rivals.values()) {
      // A holder of the same evaluation_id that is not a copy of the same run is never replaced.
      const sameRun = runKey !== undefined && stored.runKey === runKey;
      if (!sameRun || !run || !stored.run || compareCompleteness(run, stored.run) <= 0)
        return {
          action: 'keep-stored',
          stored,
          reason: sameRun
            ? `a copy of the same run (${run!.sourceRunId}) at least as complete is stored as ${stored.evaluationId} (${describe(stored.run)}; this copy: ${describe(run)}): not stored`
            : `evaluation_id ${evaluationId} is already stored with other content: not stored (two records never share an evaluation_id)`,
        };
      replaces.push(stored);
    }
    return { action: 'store', replaces };
  }

  /** Deletes the replaced records and everything that belongs to them (call inside the storing transaction). */
  async replace(replaced: StoredRun[]): Promise<void> {
    for (const s of replaced) {
      for (const table of ['samples', 'results', 'result_items', 'result_item_sets', 'documents', 'records'])
        await this.store.connection.run(`DELETE FROM ${table} WHERE record_key = $1`, [s.recordKey]);
    }
  }

  /** After the storing transaction committed: the index follows the store. */
  committed(recordKey: string, aggregate: Json, replaced: StoredRun[]): void {
    for (const s of replaced) this.forget(s);
    this.remember(recordKey, String(aggregate.evaluation_id ?? ''), aggregate);
  }
}

/** The diagnostic telling that a stored copy was superseded, or that this copy was not stored. */
export function supersedeDiagnostic(
  file: string,
  verdict: RunVerdict,
  evaluationId: string,
): Diagnostic | undefined {
  const warning = (code: string, message: string): Diagnostic => ({
    file,
    line: 1,
    column: 1,
    pointer: '',
    severity: 'warning',
    code,
    message,
  });
  if (verdict.action === 'keep-stored') return warning('store.run-kept', verdict.reason);
  if (verdict.replaces.length === 0) return undefined;
  return warning(
    'store.run-superseded',
    `a more complete copy of the run: replaces ${verdict.replaces
      .map((s) => `${s.evaluationId} (${describe(s.run)})`)
      .join(', ')} with ${evaluationId}`,
  );
}

/** The parts of an ingest item the run rule sets. */
export interface RunItem {
  status: string;
  /** evaluation_ids of the stored copies this record replaced. */
  supersedes?: string[];
  /** For a copy not stored: the evaluation_id of the stored copy kept instead. */
  kept_copy?: string;
}

/**
 * The run rule for one record about to be stored, inside its transaction: undefined when it is not stored (a copy
 * at least as complete is stored; the item says which), else the stored copies it replaces are deleted and the
 * returned `committed` is to be called once the transaction has committed.
 */
export async function admitRun(
  runs: RunIndex,
  aggregate: Json,
  item: RunItem,
  diagnostics: Diagnostic[],
  file: string,
): Promise<{ committed: (recordKey: string) => void } | undefined> {
  const verdict = await runs.verdict(aggregate);
  const evaluationId = String(aggregate.evaluation_id ?? '');
  const note = supersedeDiagnostic(file, verdict, evaluationId);
  if (note) diagnostics.push(note);
  if (verdict.action === 'keep-stored') {
    item.status = 'superseded';
    item.kept_copy = verdict.stored.evaluationId;
    return undefined;
  }
  await runs.replace(verdict.replaces);
  if (verdict.replaces.length > 0) item.supersedes = verdict.replaces.map((s) => s.evaluationId);
  return { committed: (recordKey) => runs.committed(recordKey, aggregate, verdict.replaces) };
}
