/**
 * The identity rules every converted record follows, whatever its source: what a model name that is really a
 * filesystem path becomes, what an unnamed model becomes, how a user's model map and declared metric facts are read,
 * and the run identity (the source's own run id, whether the run finished, how many samples it scored) that the
 * store uses to keep the most complete copy of one run.
 */
import { UsageError } from '../errors.js';
import { isJsonObject, type JsonObject } from '../io/json-value.js';
import { readRegularFile } from '../io/regular-file.js';
import { parseStrictJson } from '../io/strict-json.js';
import type { DeclaredMetricFacts, DeclaredMetricFactsFile } from './metric-facts.js';
import type { MappedModel, ModelMap } from './types.js';

// ---------------------------------------------------------------------------------------------------------------
// Model names that are paths

/**
 * Whether a model name is a local filesystem path rather than a model id: absolute (`/scratch/…`, `~/…`, `C:\…`),
 * explicitly relative (`./`, `../`), or with more than one `/` (a hub id is `owner/name`).
 */
export function looksLikePath(name: string): boolean {
  const n = name.trim();
  if (n === '') return false;
  if (/^(\/|~[/\\]|\.{1,2}[/\\]|[A-Za-z]:[\\/]|\\\\)/.test(n)) return true;
  if (n.includes('\\')) return true;
  return n.split('/').filter((p) => p !== '').length > 2;
}

/** Folder names that say nothing about the model (checkpoint folders, conventional leaves). */
const GENERIC_PARTS =
  /^(checkpoints?|ckpts?|models?|weights|hf|hf_model|final|merged|output|outputs|snapshots?|latest|best|step[-_]?\d+|checkpoint[-_]\d+|global_step\d+|[0-9a-f]{40})$/i;

/**
 * A model id from a path that is visibly local: `local/<last informative part>` (`/cluster/u/huggingface/7B` →
 * `local/7B`, never `huggingface/7B`, which reads as a Hub id), generic checkpoint folders skipped
 * (`…/Llama-2-13b/global_step10000` → `local/Llama-2-13b`). The full path is kept beside it (model_path).
 */
export function modelIdFromPath(path: string): string {
  const parts = path
    .trim()
    .split(/[/\\]+/)
    .filter((p) => p !== '' && p !== '.' && p !== '..' && p !== '~' && !/^[A-Za-z]:$/.test(p));
  const informative = parts.filter((p) => !GENERIC_PARTS.test(p));
  const last = (informative.length > 0 ? informative : parts).at(-1);
  return `local/${last === undefined ? 'model' : last.replace(/[^A-Za-z0-9._+-]+/g, '-')}`;
}

/** Names a source writes when it does not know the model. */
export function isUnnamedModel(name: string | undefined): boolean {
  if (name === undefined) return true;
  const n = name.trim().toLowerCase();
  return n === '' || n === 'unknown' || n === 'unknown/unknown' || n === 'none' || n === 'null';
}

// ---------------------------------------------------------------------------------------------------------------
// The files a user gives

async function readJsonFile(path: string, flag: string): Promise<unknown> {
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(path);
  } catch (error) {
    throw new UsageError('usage.bad-option', `${flag} ${path}: ${(error as Error).message}`);
  }
  const parsed = parseStrictJson(bytes);
  // A duplicate key or a number JSON cannot hold (1e999) would be read as something the file does not say.
  const issue = parsed.ok
    ? parsed.issues.find((i) => ['json.duplicate-key', 'json.overflow', 'json.nan'].includes(i.code))
    : parsed.issues[0];
  if (!parsed.ok || issue)
    throw new UsageError(
      'usage.bad-option',
      `${flag} ${path}${issue ? `:${issue.line}:${issue.column}: ${issue.message}` : ': not valid JSON'}`,
    );
  return parsed.value;
}

/** `developer/name` with neither part empty nor blank (`/abs`, `acme/ ` and `acme/` are not). */
function isDeveloperSlashName(id: string): boolean {
  const slash = id.indexOf('/');
  return slash > 0 && id.slice(0, slash).trim() !== '' && id.slice(slash + 1).trim() !== '';
}

/** Checks a parsed model map: `{ "<source name or id>": { "id": "dev/name", "developer"?, "name"? } }`. */
export function checkModelMap(value: unknown, where = 'model map'): ModelMap {
  if (!isJsonObject(value))
    throw new UsageError(
      'usage.bad-option',
      `${where}: expected a JSON object of model name → {id, developer, name}`,
    );
  const out: ModelMap = {};
  for (const [key, entry] of Object.entries(value)) {
    const bad = (why: string): never => {
      throw new UsageError('usage.bad-option', `${where}: entry ${JSON.stringify(key)}: ${why}`);
    };
    if (typeof entry === 'string') {
      if (!isDeveloperSlashName(entry))
        bad(`${JSON.stringify(entry)}: an id is "developer/name", both named`);
      out[key] = { id: entry };
      continue;
    }
    if (!isJsonObject(entry)) bad('expected {"id": "developer/name", "developer"?, "name"?}');
    const e = entry as JsonObject;
    for (const k of Object.keys(e))
      if (!['id', 'developer', 'name'].includes(k)) bad(`unknown key "${k}" (expected id, developer, name)`);
    if (typeof e.id !== 'string' || e.id.trim() === '') bad('"id" must be a non-empty string');
    const id = (e.id as string).trim();
    const mapped: MappedModel = { id };
    for (const k of ['developer', 'name'] as const) {
      if (e[k] === undefined) continue;
      if (typeof e[k] !== 'string' || (e[k] as string).trim() === '')
        bad(`"${k}" must be a non-empty string`);
      mapped[k] = (e[k] as string).trim();
    }
    if ((mapped.developer === undefined || mapped.name === undefined) && !isDeveloperSlashName(id))
      bad(
        `"id" ${JSON.stringify(id)} must be "developer/name" with both named (or give "developer" and "name")`,
      );
    out[key] = mapped;
  }
  return out;
}

/** The keys of each model map that named a model (for the warning about the entries that matched nothing). */
const matchedKeys = new WeakMap<ModelMap, Set<string>>();

/** The entry of `map` under `key`, remembered as having named a model. */
export function modelMapHit(map: ModelMap, key: string): MappedModel {
  matchedKeys.set(map, (matchedKeys.get(map) ?? new Set<string>()).add(key));
  return map[key];
}

/** The entries of a model map that named no model among the records built with it so far (sorted). */
export function unmatchedModelMapKeys(map: ModelMap | undefined): string[] {
  if (map === undefined) return [];
  const used = matchedKeys.get(map) ?? new Set<string>();
  return Object.keys(map)
    .filter((k) => !used.has(k))
    .sort();
}

/** Reads `--model-map FILE`. */
export async function readModelMap(path: string): Promise<ModelMap> {
  return checkModelMap(await readJsonFile(path, '--model-map'), `--model-map ${path}`);
}

const FACT_KEYS = ['lower_is_better', 'min_score', 'max_score', 'score_type', 'metric_unit', 'metric_kind'];
const isBound = (v: unknown): boolean =>
  (typeof v === 'number' && Number.isFinite(v)) || v === 'Infinity' || v === '-Infinity';

/** Checks parsed metric facts: `{ "<metric>": { "lower_is_better"?, "min_score"?, ... } }` in EEE's names. */
export function checkMetricFacts(value: unknown, where = 'metric facts'): DeclaredMetricFactsFile {
  if (!isJsonObject(value))
    throw new UsageError('usage.bad-option', `${where}: expected a JSON object keyed by metric name`);
  const out: DeclaredMetricFactsFile = {};
  for (const [metric, entry] of Object.entries(value)) {
    const bad = (why: string): never => {
      throw new UsageError('usage.bad-option', `${where}: metric ${JSON.stringify(metric)}: ${why}`);
    };
    if (!isJsonObject(entry)) bad(`expected an object with any of ${FACT_KEYS.join(', ')}`);
    const e = entry as JsonObject;
    for (const k of Object.keys(e))
      if (!FACT_KEYS.includes(k)) bad(`unknown key "${k}" (expected ${FACT_KEYS.join(', ')})`);
    const facts: DeclaredMetricFacts = {};
    if (e.lower_is_better !== undefined) {
      if (typeof e.lower_is_better !== 'boolean') bad('"lower_is_better" must be true or false');
      facts.lower_is_better = e.lower_is_better as boolean;
    }
    for (const [k, open] of [
      ['min_score', '-Infinity'],
      ['max_score', 'Infinity'],
    ] as const) {
      if (e[k] === undefined) continue;
      if (!isBound(e[k]) || e[k] === (open === 'Infinity' ? '-Infinity' : 'Infinity'))
        bad(`"${k}" must be a finite number or "${open}", not ${JSON.stringify(e[k]) ?? String(e[k])}`);
      facts[k] = e[k] as DeclaredMetricFacts['min_score'];
    }
    if (facts.min_score !== undefined && facts.max_score !== undefined)
      if (!(Number(facts.min_score) < Number(facts.max_score)))
        bad(`"min_score" ${facts.min_score} must be below "max_score" ${facts.max_score}`);
    if (e.score_type !== undefined) {
      if (!['binary', 'continuous', 'levels'].includes(e.score_type as string))
        bad('"score_type" must be binary, continuous or levels');
      if (e.score_type === 'levels')
        bad('"levels" needs level names, which a facts file cannot give; use continuous');
      facts.score_type = e.score_type as DeclaredMetricFacts['score_type'];
    }
    for (const k of ['metric_unit', 'metric_kind'] as const) {
      if (e[k] === undefined) continue;
      if (typeof e[k] !== 'string' || (e[k] as string) === '') bad(`"${k}" must be a non-empty string`);
      facts[k] = e[k] as string;
    }
    out[metric] = facts;
  }
  return out;
}

/** Reads `--metric-facts FILE`. */
export async function readMetricFacts(path: string): Promise<DeclaredMetricFactsFile> {
  return checkMetricFacts(await readJsonFile(path, '--metric-facts'), `--metric-facts ${path}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Run identity

/** What tells copies of one run apart: the source's run id, whether it finished, and the samples it scored. */
export interface RunIdentity {
  /** The source's own identity of the run (Inspect eval id, oaieval run_id, promptfoo evalId, ...). */
  sourceRunId: string;
  status: 'complete' | 'partial';
  scoredSamples: number;
}

/** The run identity as strings for `eval_library.additional_details` (the contract the store reads). */
export function runIdentityDetails(run: RunIdentity): Record<string, string> {
  return {
    source_run_id: run.sourceRunId,
    run_status: run.status,
    scored_samples: String(run.scoredSamples),
  };
}

/** The run identity a record states, or undefined when it states none. */
export function runIdentityOf(aggregate: JsonObject): RunIdentity | undefined {
  const lib = isJsonObject(aggregate.eval_library) ? aggregate.eval_library : undefined;
  const d = lib && isJsonObject(lib.additional_details) ? lib.additional_details : undefined;
  if (!d || typeof d.source_run_id !== 'string' || d.source_run_id === '') return undefined;
  const scored = Number(d.scored_samples);
  return {
    sourceRunId: d.source_run_id,
    status: d.run_status === 'partial' ? 'partial' : 'complete',
    scoredSamples: Number.isSafeInteger(scored) && scored >= 0 ? scored : 0,
  };
}

/** Positive when `a` is the more complete copy of a run (finished over not, then more scored samples). */
export function compareCompleteness(a: RunIdentity, b: RunIdentity): number {
  const rank = (r: RunIdentity) => (r.status === 'complete' ? 1 : 0);
  return rank(a) - rank(b) || a.scoredSamples - b.scoredSamples;
}
