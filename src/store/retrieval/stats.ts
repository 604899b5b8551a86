/**
 * Retrieval systems ranked and compared from the store's `retrieval_results`. A system is a distinct
 * (model_id, tool_id, layer, agent_id); its value on a gold query is the mean of its rows for that query (a query
 * asked twice counts once), so n counts queries.
 *
 * - leaderboard: per metric, systems ranked by their mean over queries, with a seeded percentile-bootstrap 95% CI
 *   over queries and the same tiers as records: each system is compared with the one ranked directly above on their
 *   common queries (paired t test; the exact sign test when the differences have no variance), the gaps'
 *   p-values Holm-adjusted together, and an adjusted p < 0.05 starts a new tier.
 * - compare: two systems paired on their common gold queries, per metric: paired t, the exact sign test on the
 *   queries where one does better (McNemar's exact test when the metric is binary), a paired bootstrap CI of the
 *   mean difference, Holm across metrics.
 * Direction: lower is better for latencies (*_ms), errors and privacy_leak; higher for every other metric.
 */
import { DataError } from '../../errors.js';
import { meanBootstrap } from '../../metrics/eee/uncertainty.js';
import { defaultDirection } from '../../metrics/retrieval/thresholds.js';
import { holmAdjust } from '../../metrics/stats/holm.js';
import { mcnemarExact } from '../../metrics/stats/mcnemar.js';
import { pairedBootstrap } from '../../metrics/stats/paired-bootstrap.js';
import { pairedTTest } from '../../metrics/stats/paired.js';
import type { Store } from '../db.js';
import { hasRetrievalTables } from './ingest.js';

export const SYSTEM_FIELDS = ['model_id', 'tool_id', 'layer', 'agent_id'] as const;
export type SystemField = (typeof SYSTEM_FIELDS)[number];
export type RetrievalSystem = Record<SystemField, string | null>;

const TIER_ALPHA = 0.05;

/** A system for people: its non-empty identity fields, `field=value` joined by commas. */
export function systemLabel(s: RetrievalSystem): string {
  const parts = SYSTEM_FIELDS.filter((f) => s[f] !== null).map((f) => `${f}=${s[f]}`);
  return parts.length > 0 ? parts.join(',') : '(no identity fields)';
}

const keyOf = (s: RetrievalSystem): string => JSON.stringify(SYSTEM_FIELDS.map((f) => s[f]));

interface SystemData {
  system: RetrievalSystem;
  /** metric → gold query id → the system's mean on that query. */
  metrics: Map<string, Map<string, number>>;
}

function metricValue(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return undefined;
}

/** Every system's per-query means, by metric. */
async function loadSystems(store: Store): Promise<Map<string, SystemData>> {
  const systems = new Map<string, SystemData>();
  if (!(await hasRetrievalTables(store))) return systems;
  const rows = await store.all<RetrievalSystem & { id: string; metrics: string }>(
    `SELECT model_id, tool_id, layer, agent_id, id, metrics::VARCHAR AS metrics FROM retrieval_results
     ORDER BY row_key`,
  );
  const sums = new Map<string, Map<string, Map<string, { sum: number; n: number }>>>();
  for (const row of rows) {
    const system = Object.fromEntries(SYSTEM_FIELDS.map((f) => [f, row[f] ?? null])) as RetrievalSystem;
    const key = keyOf(system);
    if (!systems.has(key)) systems.set(key, { system, metrics: new Map() });
    let byMetric = sums.get(key);
    if (!byMetric) sums.set(key, (byMetric = new Map()));
    for (const [metric, raw] of Object.entries(JSON.parse(row.metrics) as Record<string, unknown>)) {
      const v = metricValue(raw);
      if (v === undefined) continue;
      let byQuery = byMetric.get(metric);
      if (!byQuery) byMetric.set(metric, (byQuery = new Map()));
      const s = byQuery.get(row.id) ?? { sum: 0, n: 0 };
      s.sum += v;
      s.n++;
      byQuery.set(row.id, s);
    }
  }
  for (const [key, byMetric] of sums) {
    const data = systems.get(key)!;
    for (const [metric, byQuery] of byMetric)
      data.metrics.set(metric, new Map([...byQuery].map(([id, s]) => [id, s.sum / s.n])));
  }
  return systems;
}

/** The values of two systems on their common queries, in query-id order. */
function paired(a: Map<string, number>, b: Map<string, number>): { a: number[]; b: number[]; ids: string[] } {
  const ids = [...a.keys()].filter((id) => b.has(id)).sort();
  return { a: ids.map((id) => a.get(id)!), b: ids.map((id) => b.get(id)!), ids };
}

/** Two-sided p of a − b on paired values: the t test, or the exact sign test when the t test is undefined. */
function gapPValue(a: number[], b: number[]): { p: number | null; test: string | null } {
  if (a.length === 0) return { p: null, test: null };
  const t = a.length >= 2 ? pairedTTest(a, b) : undefined;
  if (t && t.p_value !== null && t.se !== null && t.se > 0) return { p: t.p_value, test: 'paired_t' };
  const better = a.filter((x, i) => x > b[i]).length;
  const worse = a.filter((x, i) => x < b[i]).length;
  if (better + worse === 0) return { p: 1, test: 'sign_exact' };
  return { p: mcnemarExact(better, worse), test: 'sign_exact' };
}

export interface RetrievalLeaderboardRow extends RetrievalSystem {
  rank: number;
  tier: number;
  system: string;
  score: number;
  ci: [number, number] | null;
  ci_method: string | null;
  n: number;
}

export interface RetrievalLeaderboard {
  benchmark: 'retrieval';
  metric: string;
  lower_is_better: boolean;
  rows: RetrievalLeaderboardRow[];
}

export interface RetrievalStatsOptions {
  metric?: string;
  iterations?: number;
  seed?: number;
}

export async function retrievalLeaderboards(
  store: Store,
  options: RetrievalStatsOptions = {},
): Promise<RetrievalLeaderboard[]> {
  const systems = [...(await loadSystems(store)).values()];
  const metrics = [...new Set(systems.flatMap((s) => [...s.metrics.keys()]))].sort();
  if (options.metric !== undefined && !metrics.includes(options.metric))
    throw new DataError(
      'store.unknown-metric',
      `no retrieval metric "${options.metric}" in the store` +
        (metrics.length ? `; it has ${metrics.join(', ')}` : ': it holds no retrieval result rows'),
    );
  const iterations = options.iterations ?? 10_000;
  const seed = options.seed ?? 0;
  return metrics
    .filter((m) => options.metric === undefined || m === options.metric)
    .map((metric) => {
      const lower = defaultDirection(metric) === 'lower';
      const entries = systems
        .filter((s) => s.metrics.has(metric))
        .map((s) => {
          const values = [...s.metrics.get(metric)!.values()];
          const score = values.reduce((x, y) => x + y, 0) / values.length;
          const boot = values.length >= 2 ? meanBootstrap(values, { iterations, seed }) : undefined;
          return { s, score, values, ci: boot ? ([boot.lower, boot.upper] as [number, number]) : null };
        })
        .sort(
          (x, y) =>
            (lower ? x.score - y.score : y.score - x.score) ||
            (systemLabel(x.s.system) < systemLabel(y.s.system) ? -1 : 1),
        );
      const gaps = entries.map((e, i) =>
        i === 0
          ? null
          : (() => {
              const p = paired(entries[i - 1].s.metrics.get(metric)!, e.s.metrics.get(metric)!);
              return gapPValue(p.a, p.b).p;
            })(),
      );
      const adjusted = holmAdjust(gaps.slice(1));
      let tier = 1;
      let rank = 0;
      const rows = entries.map((e, i): RetrievalLeaderboardRow => {
        if (i === 0 || e.score !== entries[i - 1].score) rank = i + 1;
        const p = i > 0 ? adjusted[i - 1] : null;
        if (i > 0 && p !== null && p < TIER_ALPHA) tier++;
        return {
          rank,
          tier,
          ...e.s.system,
          system: systemLabel(e.s.system),
          score: e.score,
          ci: e.ci,
          ci_method: e.ci ? 'percentile_bootstrap' : null,
          n: e.values.length,
        };
      });
      return { benchmark: 'retrieval', metric, lower_is_better: lower, rows };
    });
}

/**
 * The one system a name picks: `field=value,…`, or a value of any one identity field that only one system has.
 * An unknown or ambiguous name is a DataError listing the candidates.
 */
export function pickSystem(systems: RetrievalSystem[], name: string): RetrievalSystem {
  const list = (xs: RetrievalSystem[]) => xs.map((s) => `  ${systemLabel(s)}`).join('\n');
  let found: RetrievalSystem[];
  if (name.includes('=')) {
    const wanted = name.split(',').map((part) => {
      const [field, ...rest] = part.split('=');
      if (!(SYSTEM_FIELDS as readonly string[]).includes(field.trim()))
        throw new DataError(
          'store.unknown-system-field',
          `"${field.trim()}" is not a system field: use ${SYSTEM_FIELDS.join(', ')}`,
        );
      return [field.trim() as SystemField, rest.join('=').trim()] as const;
    });
    found = systems.filter((s) => wanted.every(([f, v]) => s[f] === v));
  } else found = systems.filter((s) => SYSTEM_FIELDS.some((f) => s[f] === name));
  if (found.length === 1) return found[0];
  if (found.length === 0)
    throw new DataError(
      'store.unknown-system',
      `no retrieval system matches "${name}"; the store has:\n${list(systems) || '  (none)'}`,
    );
  throw new DataError(
    'store.ambiguous-system',
    `"${name}" matches ${found.length} retrieval systems; name one with field=value,…:\n${list(found)}`,
  );
}

export interface RetrievalComparison {
  benchmark: 'retrieval';
  metric: string;
  lower_is_better: boolean;
  paired: boolean;
  reason: string | null;
  n_paired: number;
  n_unpaired_a: number;
  n_unpaired_b: number;
  mean_a: number | null;
  mean_b: number | null;
  difference: number | null;
  se: number | null;
  ci: [number, number] | null;
  df: number | null;
  p_value: number | null;
  p_holm: number | null;
  correlation: number | null;
  mde: number | null;
  mcnemar: { a_only: number; b_only: number; p_value: number } | null;
  sign_test: { a_higher: number; b_higher: number; p_value: number } | null;
  clustered: null;
  bootstrap: { resamples: number; seed: number; ci: [number, number] | null } | null;
}

export interface RetrievalCompareReport {
  model_a: string;
  model_b: string;
  system_a: RetrievalSystem;
  system_b: RetrievalSystem;
  cluster_by: null;
  comparisons: RetrievalComparison[];
}

export async function compareRetrievalSystems(
  store: Store,
  nameA: string,
  nameB: string,
  options: RetrievalStatsOptions & { bootstrap?: number } = {},
): Promise<RetrievalCompareReport> {
  const data = await loadSystems(store);
  const all = [...data.values()].map((d) => d.system);
  const a = pickSystem(all, nameA);
  const b = pickSystem(all, nameB);
  if (keyOf(a) === keyOf(b))
    throw new DataError(
      'store.same-system',
      `"${nameA}" and "${nameB}" name the same system ${systemLabel(a)}`,
    );
  const da = data.get(keyOf(a))!;
  const db = data.get(keyOf(b))!;
  const metrics = [...new Set([...da.metrics.keys(), ...db.metrics.keys()])]
    .filter((m) => options.metric === undefined || m === options.metric)
    .sort();
  if (metrics.length === 0)
    throw new DataError(
      'store.unknown-metric',
      options.metric ? `neither system has the metric "${options.metric}"` : 'the two systems have no metric',
    );
  const seed = options.seed ?? 0;
  const comparisons = metrics.map((metric): RetrievalComparison => {
    const va = da.metrics.get(metric) ?? new Map<string, number>();
    const vb = db.metrics.get(metric) ?? new Map<string, number>();
    const p = paired(va, vb);
    const lower = defaultDirection(metric) === 'lower';
    const base = {
      benchmark: 'retrieval' as const,
      metric,
      lower_is_better: lower,
      n_paired: p.ids.length,
      n_unpaired_a: va.size - p.ids.length,
      n_unpaired_b: vb.size - p.ids.length,
      p_holm: null,
      clustered: null,
    };
    if (p.ids.length === 0)
      return {
        ...base,
        paired: false,
        reason: 'no common gold query',
        mean_a: null,
        mean_b: null,
        difference: null,
        se: null,
        ci: null,
        df: null,
        p_value: null,
        correlation: null,
        mde: null,
        mcnemar: null,
        sign_test: null,
        bootstrap: null,
      };
    const t = pairedTTest(p.a, p.b);
    const tDefined = t.se !== null && t.se > 0;
    const aHigher = p.a.filter((x, i) => x > p.b[i]).length;
    const bHigher = p.a.filter((x, i) => x < p.b[i]).length;
    const binary = [...p.a, ...p.b].every((x) => x === 0 || x === 1);
    const exact = aHigher + bHigher > 0 ? mcnemarExact(aHigher, bHigher) : 1;
    const d = p.a.map((x, i) => x - p.b[i]);
    return {
      ...base,
      paired: true,
      reason: tDefined
        ? null
        : p.ids.length < 2
          ? 'one common query: the t test needs two'
          : 'no variance in the paired differences: the t test is undefined; see the exact sign test',
      mean_a: t.mean_a,
      mean_b: t.mean_b,
      difference: t.difference,
      se: tDefined ? t.se : null,
      ci: tDefined ? t.ci : null,
      df: tDefined ? t.df : null,
      p_value: tDefined ? t.p_value : null,
      correlation: t.correlation,
      mde: tDefined ? t.mde : null,
      mcnemar: binary ? { a_only: aHigher, b_only: bHigher, p_value: exact } : null,
      sign_test: { a_higher: aHigher, b_higher: bHigher, p_value: exact },
      bootstrap: options.bootstrap ? pairedBootstrap(d, { iterations: options.bootstrap, seed }) : null,
    };
  });
  const adjusted = holmAdjust(comparisons.map((c) => c.p_value));
  comparisons.forEach((c, i) => (c.p_holm = adjusted[i]));
  return {
    model_a: systemLabel(a),
    model_b: systemLabel(b),
    system_a: a,
    system_b: b,
    cluster_by: null,
    comparisons,
  };
}

/** Every system in the store (for listings and errors). */
export async function retrievalSystems(store: Store): Promise<RetrievalSystem[]> {
  return [...(await loadSystems(store)).values()].map((d) => d.system);
}
