/**
 * The `.eval_results` entries a store holds: for each model and benchmark the leaderboard's chosen result (the most
 * recently retrieved record's, selection.ts) of the benchmark's mapped metric, as the Hub's entry shape; the
 * benchmarks without a mapping (or without the mapped metric) listed, never guessed.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { UsageError } from '../../errors.js';
import { closestNames } from '../closest.js';
import type { Store } from '../db.js';
import { chosenResultsSql, displayDate } from '../selection.js';
import { mappingOf, metricKey, type BenchmarkMapping } from './benchmarks.js';
import type { YamlMap } from './yaml.js';

/** One entry to export, and where it came from. */
export interface HfEntry {
  model_id: string;
  benchmark: string;
  metric: string;
  dataset_id: string;
  task_id: string;
  revision?: string;
  value: number;
  /** ISO 8601, from the record's evaluation_timestamp (absent when the record has none). */
  date?: string;
  source?: { url: string; name?: string };
  notes?: string;
  evaluation_id: string;
}

/** A stored benchmark that is not exported, and why. */
export interface Unmapped {
  model_id: string;
  benchmark: string;
  metrics: string[];
  reason: string;
}

interface Row {
  model_id: string;
  benchmark: string;
  metric: string;
  metric_id: string | null;
  score: number;
  evaluation_timestamp: string | null;
  evaluation_id: string;
  source_organization_name: string | null;
  source_organization_url: string | null;
  run_status: string | null;
}

export interface EntryOptions {
  table: ReadonlyMap<string, BenchmarkMapping>;
  /** Only these models. */
  models?: string[];
  /** A source URL for every entry (the Hub needs one for `source`), and its display name. */
  sourceUrl?: string;
  sourceName?: string;
}

/** The entries and the unmapped benchmarks, sorted by model, dataset, task (entries) and model, benchmark. */
export async function hfEntries(
  store: Store,
  options: EntryOptions,
): Promise<{ entries: HfEntry[]; unmapped: Unmapped[] }> {
  if (options.models !== undefined) await checkModels(store, options.models);
  const params: DuckDBValue[] = [];
  const chosen = chosenResultsSql(options.models ? { models: options.models } : {}, params);
  const rows = await store.all<Row>(
    `WITH chosen AS (${chosen})
     SELECT c.model_id, c.benchmark, c.metric, r.metric_id, c.score, rec.evaluation_timestamp, rec.evaluation_id,
            rec.source_organization_name, rec.source_organization_url,
            rec.raw -> 'eval_library' -> 'additional_details' ->> 'run_status' AS run_status
     FROM chosen c JOIN results r USING (record_key, result_index) JOIN records rec USING (record_key)
     ORDER BY c.model_id, c.benchmark, c.metric`,
    params,
  );
  const byBenchmark = new Map<string, Row[]>();
  for (const r of rows) {
    const k = `${r.model_id}\u0000${r.benchmark}`;
    byBenchmark.set(k, [...(byBenchmark.get(k) ?? []), r]);
  }
  const entries: HfEntry[] = [];
  const unmapped: Unmapped[] = [];
  for (const group of byBenchmark.values()) {
    const { model_id, benchmark } = group[0]!;
    const metrics = group.map((r) => r.metric);
    const mapping = mappingOf(options.table, benchmark);
    if (mapping === undefined) {
      unmapped.push({
        model_id,
        benchmark,
        metrics,
        reason: 'no mapping to a Hub dataset (add it with --benchmarks)',
      });
      continue;
    }
    const wanted = mapping.metrics.map(metricKey);
    const matches = (r: Row, m: string) =>
      metricKey(r.metric) === m || (r.metric_id !== null && metricKey(r.metric_id) === m);
    const picked = wanted.map((m) => group.find((r) => matches(r, m))).find((r) => r !== undefined);
    if (picked === undefined) {
      unmapped.push({
        model_id,
        benchmark,
        metrics,
        reason: `none of the mapped metric(s) ${mapping.metrics.join(', ')} is stored`,
      });
      continue;
    }
    entries.push(entryOf(picked, mapping, options));
  }
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  entries.sort(
    (a, b) =>
      cmp(a.model_id, b.model_id) ||
      cmp(a.dataset_id, b.dataset_id) ||
      cmp(a.task_id, b.task_id) ||
      cmp(a.benchmark, b.benchmark),
  );
  return { entries: dedupe(entries), unmapped };
}

/** A UsageError naming the closest model ids when --model names a model the store does not hold. */
async function checkModels(store: Store, models: string[]): Promise<void> {
  const known = (await store.all<{ m: string }>('SELECT DISTINCT model_id AS m FROM records ORDER BY m')).map(
    (r) => r.m,
  );
  for (const m of models) {
    if (known.includes(m)) continue;
    const closest = closestNames(m, known);
    throw new UsageError(
      'store.unknown-model',
      `unknown model "${m}"${closest.length > 0 ? `; closest known: ${closest.join(', ')}` : '; the store has no models'}`,
    );
  }
}

/** Two benchmarks of one model mapped to the same dataset and task: the first (by benchmark name) is kept. */
function dedupe(entries: HfEntry[]): HfEntry[] {
  const seen = new Set<string>();
  return entries.filter((e) => {
    const k = `${e.model_id}\u0000${e.dataset_id}\u0000${e.task_id}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function entryOf(r: Row, mapping: BenchmarkMapping, options: EntryOptions): HfEntry {
  const date = displayDate(r.evaluation_timestamp);
  const notes = [
    mapping.notes,
    r.run_status === 'partial' ? 'partial run (the evaluation did not finish)' : undefined,
  ].filter((x): x is string => x !== undefined);
  const url = options.sourceUrl ?? r.source_organization_url ?? undefined;
  // The evaluator: the record's organisation, unless it names no one (`unknown`) or only the tool that wrote the
  // record (`evalkit`, as `evalkit run` records say): then the entry has no name rather than the tool's.
  const org = r.source_organization_name?.trim();
  const name = options.sourceName ?? (org && !/^(unknown|evalkit)$/i.test(org) ? org : undefined);
  return {
    model_id: r.model_id,
    benchmark: r.benchmark,
    metric: r.metric,
    dataset_id: mapping.dataset_id,
    task_id: mapping.task_id,
    ...(mapping.revision ? { revision: mapping.revision } : {}),
    value: r.score,
    ...(date !== null && !Number.isNaN(Date.parse(date)) ? { date } : {}),
    // The Hub requires a URL in `source`: without one there is no source block.
    ...(url ? { source: { ...(name ? { name } : {}), url } } : {}),
    ...(notes.length > 0 ? { notes: notes.join('; ') } : {}),
    evaluation_id: r.evaluation_id,
  };
}

/** The entry as the Hub's `.eval_results` list item. */
export function hubEntry(e: HfEntry): YamlMap {
  return {
    dataset: { id: e.dataset_id, task_id: e.task_id, revision: e.revision },
    value: e.value,
    date: e.date,
    source: e.source ? { url: e.source.url, name: e.source.name } : undefined,
    notes: e.notes,
  };
}
