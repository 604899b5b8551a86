/**
 * Legacy benchmark outputs → benchmark output v1, by the seed's mapping: `config.*` and old `metadata.*` →
 * `metadata.*` (benchmark / model / run reshaped), `metrics`/`scores` → `results.metrics`, `details` →
 * `results.details`, failures → `results.status = "error"` with `results.error.message`, plus `$schema` and
 * `schema_version: "v1"`. Nothing is dropped: a value with no place in v1 is kept under `results.details.legacy`
 * and reported as unmapped. A pure function; the caller moves the file.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../io/canonical.js';
import { BENCH_OUTPUT_SCHEMA_URI } from './schema.js';
import { isObject, type Json } from '../../io/json-value.js';

export type BenchNoteKind = 'inferred' | 'renamed' | 'converted' | 'moved' | 'unmapped';

export interface BenchMigrationNote {
  pointer: string;
  kind: BenchNoteKind;
  detail: string;
}

export interface BenchMigrationOutcome {
  value: Record<string, unknown>;
  changed: boolean;
  notes: BenchMigrationNote[];
  problems: string[];
}

export interface BenchMigrationOptions {
  /** The benchmark name to use when the document names none (e.g. from the file's folder). */
  benchmarkHint?: string;
  /** ISO-8601 start time to use when the document records none (e.g. the file's modification time). */
  startedAtHint?: string;
}

const esc = (k: string): string => k.replace(/~/g, '~0').replace(/\//g, '~1');

/** Legacy key → [section, v1 key]. Flat keys found in config or metadata go to their section. */
const FLAT_KEYS: Record<string, [section: 'benchmark' | 'model' | 'run', key: string]> = {
  benchmark_name: ['benchmark', 'name'],
  benchmark_version: ['benchmark', 'version'],
  suite: ['benchmark', 'suite'],
  task: ['benchmark', 'task'],
  model_name: ['model', 'name'],
  provider: ['model', 'provider'],
  model_provider: ['model', 'provider'],
  revision: ['model', 'revision'],
  model_revision: ['model', 'revision'],
  parameters: ['model', 'parameters'],
  model_parameters: ['model', 'parameters'],
  generation: ['model', 'parameters'],
  run_id: ['run', 'id'],
  started_at: ['run', 'started_at'],
  start_time: ['run', 'started_at'],
  timestamp: ['run', 'started_at'],
  finished_at: ['run', 'finished_at'],
  end_time: ['run', 'finished_at'],
  git: ['run', 'git'],
  command: ['run', 'command'],
  host: ['run', 'host'],
};
/** Sampling settings found loose in config/metadata: they belong to metadata.model.parameters. */
const MODEL_PARAMETER_KEYS = new Set(['temperature', 'max_tokens', 'top_p', 'top_k', 'seed', 'stop']);
const SECTION_NAME_KEY = { benchmark: 'name', model: 'name', run: 'id' } as const;
const FAILURE_KEYS = ['error', 'errors', 'exception', 'failure'];
const V1_TOP = new Set(['$schema', 'schema_version', 'metadata', 'results']);

/** The seed's legacy shapes: {config, results}, {metrics, metadata} or {scores, details}, without `$schema`. */
export function hasLegacyKeys(doc: unknown): boolean {
  if (!isObject(doc) || '$schema' in doc) return false;
  return [
    ['config', 'results'],
    ['metrics', 'metadata'],
    ['scores', 'details'],
  ].some((keys) => keys.every((k) => k in doc));
}

/** "Looks legacy": one of the legacy shapes, or schema_version without $schema. */
export function looksLegacy(doc: unknown): boolean {
  return hasLegacyKeys(doc) || (isObject(doc) && 'schema_version' in doc && !('$schema' in doc));
}

function failureMessage(v: unknown): string {
  if (typeof v === 'string') return v;
  if (isObject(v) && typeof v.message === 'string') return v.message;
  if (Array.isArray(v)) return v.map(failureMessage).join('; ');
  return JSON.stringify(v) ?? String(v);
}

export function migrateLegacyBenchOutput(
  input: Json,
  options: BenchMigrationOptions = {},
): BenchMigrationOutcome {
  if (input.schema_version === 'v1' && typeof input.$schema === 'string')
    return { value: input, changed: false, notes: [], problems: [] };
  const src: Json = structuredClone(input);
  const notes: BenchMigrationNote[] = [];
  const problems: string[] = [];
  const meta: Json = { benchmark: {}, model: {}, run: {} };
  const results: Json = { status: 'ok', metrics: {} };
  const legacy: Json = {};
  const details: Json = {};

  const putSection = (section: 'benchmark' | 'model' | 'run', value: unknown, from: string): void => {
    if (isObject(value)) Object.assign(meta[section], value);
    else if (value !== undefined && value !== null) meta[section][SECTION_NAME_KEY[section]] = String(value);
    notes.push({ pointer: `/metadata/${section}`, kind: 'moved', detail: `from ${from}` });
  };
  const absorb = (source: unknown, name: string): void => {
    if (!isObject(source)) return;
    for (const [k, v] of Object.entries(source)) {
      if (k === 'benchmark' || k === 'model' || k === 'run') putSection(k, v, `${name}.${k}`);
      else if (MODEL_PARAMETER_KEYS.has(k)) {
        meta.model.parameters = isObject(meta.model.parameters) ? meta.model.parameters : {};
        meta.model.parameters[k] = v;
        notes.push({
          pointer: `/metadata/model/parameters/${esc(k)}`,
          kind: 'moved',
          detail: `from ${name}.${k}`,
        });
      } else if (k in FLAT_KEYS) {
        const [section, key] = FLAT_KEYS[k];
        meta[section][key] = v;
        notes.push({ pointer: `/metadata/${section}/${key}`, kind: 'moved', detail: `from ${name}.${k}` });
      } else {
        meta[k] = v;
        if (name !== 'metadata')
          notes.push({ pointer: `/metadata/${esc(k)}`, kind: 'moved', detail: `from ${name}.${k}` });
      }
    }
  };
  absorb(src.metadata, 'metadata');
  absorb(src.config, 'config');

  const addMetrics = (source: unknown, from: string): void => {
    if (!isObject(source)) {
      if (source !== undefined) {
        details[from] = source;
        notes.push({
          pointer: `/results/details/${esc(from)}`,
          kind: 'moved',
          detail: `${from} is not a metric map`,
        });
      }
      return;
    }
    for (const [k, v] of Object.entries(source)) {
      if (typeof v === 'number' && Number.isFinite(v)) {
        results.metrics[k] = v;
      } else {
        details[k] = v;
        notes.push({
          pointer: `/results/details/${esc(k)}`,
          kind: 'moved',
          detail: `${from}.${k} is not a finite number`,
        });
      }
    }
    notes.push({ pointer: '/results/metrics', kind: 'moved', detail: `from ${from}` });
  };
  const oldResults = src.results;
  if (isObject(oldResults)) {
    const rest: Json = { ...oldResults };
    if ('metrics' in rest) addMetrics(rest.metrics, 'results.metrics');
    delete rest.metrics;
    for (const k of ['status', 'error', 'cases', 'artifacts'] as const)
      if (k in rest) {
        results[k] = rest[k];
        delete rest[k];
      }
    if (isObject(rest.details)) Object.assign(details, rest.details);
    delete rest.details;
    addMetrics(rest, 'results');
  } else if (Array.isArray(oldResults)) {
    results.cases = oldResults;
    notes.push({ pointer: '/results/cases', kind: 'moved', detail: 'from results (a list)' });
  } else if (oldResults !== undefined) legacy.results = oldResults;
  if ('metrics' in src) addMetrics(src.metrics, 'metrics');
  if ('scores' in src) addMetrics(src.scores, 'scores');
  if (isObject(src.details)) {
    Object.assign(details, src.details);
    notes.push({ pointer: '/results/details', kind: 'moved', detail: 'from details' });
  } else if (src.details !== undefined) legacy.details = src.details;

  for (const k of FAILURE_KEYS)
    if (k in src && src[k] !== null && src[k] !== false && !(Array.isArray(src[k]) && src[k].length === 0)) {
      results.status = 'error';
      results.error = { message: failureMessage(src[k]) };
      if (isObject(src[k]) && typeof src[k].type === 'string') results.error.type = src[k].type;
      notes.push({ pointer: '/results/error/message', kind: 'moved', detail: `from ${k}` });
    }
  if (typeof src.status === 'string' && /^(error|fail|failed|failure)$/i.test(src.status))
    results.status = 'error';
  if (results.status !== 'ok' && results.status !== 'error') {
    const old = results.status;
    results.status = /^(error|fail|failed|failure)$/i.test(String(old)) ? 'error' : 'ok';
    notes.push({
      pointer: '/results/status',
      kind: 'converted',
      detail: `${JSON.stringify(old)} → ${results.status}`,
    });
  }
  if (results.status === 'error' && !isObject(results.error)) {
    results.error = { message: 'the legacy output recorded a failure without a message' };
    notes.push({ pointer: '/results/error/message', kind: 'inferred', detail: 'no message was recorded' });
  }

  const handled = new Set([...V1_TOP, 'config', 'metrics', 'scores', 'details', 'status', ...FAILURE_KEYS]);
  for (const [k, v] of Object.entries(src)) if (!handled.has(k)) legacy[k] = v;
  for (const k of Object.keys(legacy))
    notes.push({
      pointer: `/results/details/legacy/${esc(k)}`,
      kind: 'unmapped',
      detail: `top-level ${k} has no place in v1; kept under results.details.legacy`,
    });
  if (Object.keys(legacy).length > 0) details.legacy = legacy;
  if (Object.keys(details).length > 0) results.details = details;

  // Required identity the legacy file did not record.
  const infer = (section: 'benchmark' | 'model' | 'run', key: string, value: string, why: string): void => {
    if (typeof meta[section][key] === 'string' && meta[section][key] !== '') return;
    if (meta[section][key] !== undefined && meta[section][key] !== null) {
      meta[section][key] = String(meta[section][key]);
      notes.push({
        pointer: `/metadata/${section}/${key}`,
        kind: 'converted',
        detail: 'written as a string',
      });
      return;
    }
    meta[section][key] = value;
    notes.push({ pointer: `/metadata/${section}/${key}`, kind: 'inferred', detail: why });
  };
  infer(
    'benchmark',
    'name',
    options.benchmarkHint ?? 'unknown',
    options.benchmarkHint ? "from the file's folder" : 'not recorded',
  );
  infer('model', 'name', 'unknown', 'not recorded');
  infer('model', 'provider', 'unknown', 'not recorded');
  const contentId = createHash('sha256').update(canonicalJson(input)).digest('hex').slice(0, 16);
  infer('run', 'id', `legacy-${contentId}`, 'derived from the content (stable across re-runs)');
  if (meta.run.started_at === undefined) {
    if (options.startedAtHint)
      infer('run', 'started_at', options.startedAtHint, "the file's modification time");
    else problems.push('metadata.run.started_at is not recorded and no start time could be inferred');
  } else if (typeof meta.run.started_at === 'number') {
    const seconds = meta.run.started_at > 1e12 ? meta.run.started_at / 1000 : meta.run.started_at;
    const date = new Date(seconds * 1000);
    if (Number.isNaN(date.getTime())) {
      problems.push(
        `metadata.run.started_at ${meta.run.started_at} is not a time (epoch seconds or milliseconds)`,
      );
    } else {
      meta.run.started_at = date.toISOString();
      notes.push({
        pointer: '/metadata/run/started_at',
        kind: 'converted',
        detail: 'epoch number written as ISO-8601',
      });
    }
  }

  const value = {
    $schema: typeof input.$schema === 'string' ? input.$schema : BENCH_OUTPUT_SCHEMA_URI,
    schema_version: 'v1',
    metadata: meta,
    results,
  };
  if (typeof input.$schema !== 'string')
    notes.push({ pointer: '/$schema', kind: 'inferred', detail: BENCH_OUTPUT_SCHEMA_URI });
  notes.push({
    pointer: '/schema_version',
    kind: 'converted',
    detail: `${JSON.stringify(input.schema_version ?? null)} → "v1"`,
  });
  return { value, changed: true, notes, problems };
}
