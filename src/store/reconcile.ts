/**
 * `evalkit reconcile`: every stored result checked again against its stored rows, with the facts its source declared
 * (kept in the record at conversion, see checks/reconciliation.ts), in a store or in a folder of EEE records. The outcome
 * is compared with the one the record keeps: a store whose rows were changed after the fact, or a record written by
 * an older evalkit, shows here.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  recheckAggregate,
  recheckFails,
  reconciliationCounts,
  rowFacts,
  RowTally,
  type ReconciliationCounts,
} from '../checks/reconciliation.js';
import { readJsonlValues } from '../convert/read.js';
import { expandPaths, isJsonlPath, pathExists } from '../io/files.js';
import { isObject, type Json } from '../io/json-value.js';
import type { Store } from './db.js';
import { samplesFileOf } from './ingest.js';

type Obj = Record<string, unknown>;

/** One result checked again. */
export interface ReconcileRow {
  evaluation_id: string;
  model_id: string;
  evaluation_result_id: string;
  evaluation_name: string;
  metric: string;
  outcome: string;
  note: string;
  /** The outcome the record keeps (null when it keeps none: not written by evalkit's converters). */
  stored_outcome: string | null;
  /** The check now gives another outcome than the one the record keeps. */
  changed: boolean;
  /** The record keeps it as reconciled and it no longer is: a disagreement (exit 1) whatever the outcome now. */
  lost: boolean;
}

export interface ReconcileReport {
  summary: ReconciliationCounts & { records: number; results: number; changed: number; lost: number };
  results: ReconcileRow[];
}

/** The rows of one record's results checked against what its results keep; `aggregate` is not modified. */
function recheck(aggregate: Obj, tally: RowTally): ReconcileRow[] {
  const model = isObject(aggregate.model_info as Json) ? (aggregate.model_info as Obj).id : undefined;
  return recheckAggregate(aggregate, tally).map((r) => ({
    evaluation_id: String(aggregate.evaluation_id ?? ''),
    model_id: String(model ?? ''),
    evaluation_result_id: r.evaluation_result_id,
    evaluation_name: r.evaluation_name,
    metric: r.metric,
    outcome: r.outcome,
    note: r.note,
    stored_outcome: r.stored_outcome,
    changed: r.changed,
    lost: r.stored_outcome === 'reconciled' && r.outcome !== 'reconciled',
  }));
}

function report(rows: ReconcileRow[], records: number): ReconcileReport {
  return {
    summary: {
      records,
      results: rows.length,
      ...reconciliationCounts(rows),
      changed: rows.filter((r) => r.changed).length,
      lost: rows.filter((r) => r.lost).length,
    },
    results: rows,
  };
}

/** Every result of a store, checked against its stored rows. */
export async function reconcileStore(store: Store): Promise<ReconcileReport> {
  const records = await store.all<{ record_key: string; raw: unknown }>(
    'SELECT record_key, raw FROM records ORDER BY evaluation_id, record_key',
  );
  const rows: ReconcileRow[] = [];
  for (const record of records) {
    const aggregate = (typeof record.raw === 'string' ? JSON.parse(record.raw) : record.raw) as Obj;
    const tally = new RowTally();
    const samples = await store.all<{
      evaluation_result_id: string | null;
      evaluation_name: string;
      sample_hash: string | null;
      sample_id: string;
      epoch: number | null;
      trial: string | null;
      score: number | null;
      is_correct: boolean | null;
    }>(
      `SELECT evaluation_result_id, evaluation_name, sample_hash, sample_id, epoch,
              json_extract_string(raw, '$.metadata.train_trial_index') AS trial, score, is_correct
       FROM samples WHERE record_key = $1 ORDER BY row_index`,
      [record.record_key],
    );
    for (const s of samples) {
      const value = s.score ?? (s.is_correct === null ? null : Number(s.is_correct));
      tally.add({
        evaluation_result_id: s.evaluation_result_id,
        evaluation_name: s.evaluation_name,
        sample_hash: s.sample_hash,
        sample_id: s.sample_id,
        epoch: s.epoch ?? (s.trial !== null && /^\d{1,9}$/.test(s.trial) ? Number(s.trial) : null),
        value: value !== null && Number.isFinite(value) ? value : null,
        correct: s.is_correct === null ? null : Number(s.is_correct),
      });
    }
    rows.push(...recheck(aggregate, tally));
  }
  return report(rows, records.length);
}

/** Every EEE aggregate under the given files and folders, checked against its samples file. */
export async function reconcileFiles(paths: string[], cwd: string): Promise<ReconcileReport> {
  const rows: ReconcileRow[] = [];
  let records = 0;
  for (const path of await expandPaths(paths, cwd)) {
    if (path === '-' || isJsonlPath(path)) continue;
    const absolute = resolve(cwd, path);
    let doc: unknown;
    try {
      doc = JSON.parse(await readFile(absolute, 'utf8'));
    } catch {
      continue; // not one JSON document: `evalkit validate` says why
    }
    if (!isObject(doc as Json) || !Array.isArray((doc as Obj).evaluation_results)) continue;
    records++;
    const tally = new RowTally();
    const samples = samplesFileOf(absolute, doc as Json);
    if (samples !== undefined && (await pathExists(samples)))
      for await (const { value } of readJsonlValues(samples))
        if (isObject(value as Json)) tally.add(rowFacts(value as Obj));
    rows.push(...recheck(doc as Obj, tally));
  }
  return report(rows, records);
}

/**
 * Whether the report holds a disagreement (the command's exit 1): rows that disagree with their source, or a result
 * the record keeps as reconciled that no longer is.
 */
export const hasDisagreement = (r: ReconcileReport): boolean => r.results.some((x) => recheckFails(x));
