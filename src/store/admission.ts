/**
 * What the store lets in, decided in one place for every door (EEE files and datastores, other tools' outputs
 * through the converters, Parquet exports read back): a record or row goes in only when the validator accepts it
 * (the same `Engine` as `evalkit validate`) and it holds no number JSON cannot write (NaN, ±Infinity: a JSON file
 * cannot hold them, so `validate` never sees them, but a converter's objects or a Parquet column can). A record
 * already stored is skipped, a duplicate under another evaluation_id only goes in when allowed. Also the shapes
 * every door reports in (`IngestItem`, `UnitOutcome`) and what it is given (`UnitContext`).
 */
import type { Diagnostic } from '../diagnostics.js';
import type { Engine } from '../validate/engine.js';
import { diagnosticAt } from '../validate/file.js';
import type { FlatRecord } from './flat-records.js';
import type { RunIndex } from './supersede.js';
import type { Decision, RecordWriter } from './write.js';
import type { Reconciliation, ReconciliationCounts } from '../checks/reconciliation.js';

/** What happened to one record (or to one input that gave none). */
export interface IngestItem {
  /** The file or folder, as given (relative to cwd when given relatively). */
  source: string;
  origin_kind: string;
  /** `superseded`: a copy of a run of which a copy at least as complete is stored (see supersede.ts). */
  status: 'added' | 'already-stored' | 'duplicate' | 'superseded' | 'rejected';
  evaluation_id?: string;
  record_key?: string;
  rows: number;
  /** For a duplicate: the evaluation_id of the record it duplicates. */
  duplicate_of?: string;
  /** Why it was rejected, when no diagnostic says it. */
  reason?: string;
  /** The evaluation_ids of the stored, less complete copies of the run this record replaced. */
  supersedes?: string[];
  /** For a superseded copy: the evaluation_id of the stored copy kept instead. */
  kept_copy?: string;
  /** How its results reconciled with their source (converted records; see checks/reconciliation.ts). */
  reconciliation?: ReconciliationCounts;
  /** Its results whose rows disagree with the source. */
  disagreements?: Reconciliation[];
}

/** With `--strict`, a record whose rows disagree with its source is refused (true: refused, item says why). */
export function refusedStrict(item: IngestItem): boolean {
  if (!item.disagreements?.length) return false;
  item.status = 'rejected';
  item.reason = `--strict: ${item.disagreements.length} result(s) disagree with the source (${item.disagreements
    .map((d) => `${d.evaluation_result_id || d.evaluation_name}: ${d.outcome}, ${d.note}`)
    .join('; ')})`;
  return true;
}

/** What a unit's reader needs from the run. */
export interface UnitContext {
  writer: RecordWriter;
  /** The validator every record and row goes through. */
  engine: Engine;
  allowDuplicates: boolean;
  /** Refuse records whose rows disagree with their source. */
  strict?: boolean;
  onBytes: (n: number) => void;
  cwd: string;
  /** Converted records already met in this run, by datastore path (a source may claim a run's every file). */
  converted: Set<string>;
  /** The stored runs (one record per run: the most complete copy). */
  runs?: RunIndex;
  /** Aggregates of a flat datastore: the collection their index names and its errors about them. */
  flat?: Map<string, FlatRecord>;
}

export interface UnitOutcome {
  items: IngestItem[];
  diagnostics: Diagnostic[];
}

/** Whether a record goes in: new, or a duplicate allowed by the caller; else the item says why not. */
export async function admitDecision(
  decision: Decision,
  item: IngestItem,
  diagnostics: Diagnostic[],
  allowDuplicates: boolean,
  file: string,
): Promise<boolean> {
  if (decision.status === 'new') return true;
  if (decision.status === 'already-stored') {
    item.status = 'already-stored';
    return false;
  }
  item.duplicate_of = decision.duplicateOf;
  if (allowDuplicates) return true;
  item.status = 'duplicate';
  diagnostics.push({
    file,
    line: 1,
    column: 1,
    pointer: '',
    severity: 'warning',
    code: 'store.duplicate-record',
    message: `the same record is stored under evaluation_id ${JSON.stringify(decision.duplicateOf)} (EEE check 10): skipped`,
  });
  return false;
}

const escapePointer = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * JSON pointers to the numbers in `value` that are NaN or ±Infinity (at most `limit`). The walk keeps its own
 * stack, so a document nested however deep is walked without recursion; a pointer is built only for what is found.
 */
export function nonFiniteNumbers(value: unknown, limit = 10): string[] {
  interface Step {
    value: unknown;
    key: string;
    parent: Step | undefined;
  }
  const found: string[] = [];
  const pointer = (step: Step): string => {
    const keys: string[] = [];
    for (let s: Step | undefined = step; s?.parent; s = s.parent) keys.push(escapePointer(s.key));
    return keys.length === 0 ? '' : `/${keys.reverse().join('/')}`;
  };
  const stack: Step[] = [{ value, key: '', parent: undefined }];
  while (stack.length > 0 && found.length < limit) {
    const step = stack.pop()!;
    const v = step.value;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) found.push(pointer(step));
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: String(i), parent: step });
    } else if (typeof v === 'object' && v !== null) {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--)
        stack.push({ value: entries[i][1], key: entries[i][0], parent: step });
    }
  }
  return found;
}

/** Where a document was read, for its diagnostics. */
export interface DocumentPlace {
  file: string;
  line: number;
  column?: number;
}

/**
 * The validator's verdict on one document (an aggregate record or an instance row), and a `store.non-finite`
 * error for each NaN or ±Infinity in it. `ok` is false when any error was found: the document is not stored.
 */
export function admitDocument(
  document: unknown,
  engine: Engine,
  place: DocumentPlace,
): { ok: boolean; diagnostics: Diagnostic[] } {
  const verdict = engine.check(document);
  const at = { line: place.line, column: place.column ?? 1 };
  const diagnostics: Diagnostic[] = verdict.issues.map((i) => diagnosticAt(place.file, at, i, verdict));
  for (const pointer of nonFiniteNumbers(document))
    diagnostics.push({
      file: place.file,
      line: place.line,
      column: place.column ?? 1,
      pointer,
      severity: 'error',
      code: 'store.non-finite',
      message:
        'a number that is not finite (NaN or ±Infinity): JSON cannot hold it, so the store does not keep it (write null, or the bound as the string "Infinity" where EEE allows it)',
      type: verdict.type,
      schema_version: verdict.schemaVersion,
    });
  return { ok: !diagnostics.some((d) => d.severity === 'error'), diagnostics };
}
