/**
 * The models in a store: each model id with its records, and the groups of ids that look like one model under
 * several spellings (case, separators, developer aliases such as meta / meta-llama, a `-hf` suffix, a developer
 * left unknown), which a model map (`--model-map`) can then merge. Unnamed models (each run apart, see
 * src/convert/identity.ts), ids derived from local paths and models without a known developer are flagged.
 */
import type { Store } from './db.js';

export interface ModelRecord {
  evaluation_id: string;
  record_key: string;
  source: string;
  eval_library: string | null;
  benchmarks: string[];
}

export interface StoredModel {
  model_id: string;
  developer: string | null;
  name: string | null;
  records: ModelRecord[];
  /**
   * `unnamed` (the source did not name the model), `from-path` (derived from a local path: `local/<name>`),
   * `no-developer` (the developer is unknown: the source named the model without one, or only with a server prefix
   * such as `ollama/` that is no developer). Each stays until a model map names the model.
   */
  flags: string[];
  /** The local path the id was derived from, when it was. */
  model_path?: string;
  /** The server prefix the source named the model with (`ollama`, `vllm`, ...), when that was all it said. */
  provider_prefix?: string;
}

export interface ModelSpellings {
  /** What the spellings have in common (the normalised id). */
  key: string;
  ids: string[];
  /** Why they look alike. */
  reason: string;
}

export interface ModelsReport {
  models: StoredModel[];
  look_alike: ModelSpellings[];
}

/** Developer names that stand for one developer. */
const DEVELOPER_ALIASES: Record<string, string> = {
  'meta-llama': 'meta',
  facebook: 'meta',
  metaai: 'meta',
  'meta-ai': 'meta',
  mistralai: 'mistral',
  'mistral-ai': 'mistral',
  'google-deepmind': 'google',
  deepmind: 'google',
  'deepseek-ai': 'deepseek',
  qwen: 'alibaba',
  'alibaba-cloud': 'alibaba',
  'microsoft-research': 'microsoft',
  'x-ai': 'xai',
  'anthropic-ai': 'anthropic',
  'openai-community': 'openai',
  cohereforai: 'cohere',
  coherelabs: 'cohere',
};

/** Developers that say nothing (an unnamed or path-derived model): they match any developer. */
const UNKNOWN_DEVELOPERS = new Set(['', 'unknown', 'local', 'none']);

export function normalisedDeveloper(developer: string): string {
  const d = developer
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '-');
  return DEVELOPER_ALIASES[d] ?? d;
}

/** A model name without case, separators or a `-hf` weights-format suffix. */
export function normalisedName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[-_.](hf)$/, '')
    .replace(/[\s\-_.:]+/g, '');
}

function split(id: string): { developer: string; name: string } {
  const slash = id.lastIndexOf('/');
  return slash === -1
    ? { developer: '', name: id }
    : { developer: id.slice(0, slash), name: id.slice(slash + 1) };
}

/** Groups of distinct ids that look like one model. */
export function lookAlikeIds(ids: string[], exclude: Set<string> = new Set()): ModelSpellings[] {
  const byName = new Map<string, string[]>();
  for (const id of [...new Set(ids)].sort()) {
    if (exclude.has(id)) continue;
    const key = normalisedName(split(id).name);
    if (key === '') continue;
    const list = byName.get(key) ?? [];
    list.push(id);
    byName.set(key, list);
  }
  const out: ModelSpellings[] = [];
  for (const [name, list] of byName) {
    if (list.length < 2) continue;
    // Within one name: one group per developer (aliases joined); an unknown developer joins every group.
    const byDeveloper = new Map<string, string[]>();
    const unknown: string[] = [];
    for (const id of list) {
      const dev = normalisedDeveloper(split(id).developer);
      if (UNKNOWN_DEVELOPERS.has(dev)) unknown.push(id);
      else byDeveloper.set(dev, [...(byDeveloper.get(dev) ?? []), id]);
    }
    const groups =
      byDeveloper.size === 0
        ? [['unknown', unknown] as const]
        : [...byDeveloper].map(([d, g]) => [d, [...g, ...unknown]] as const);
    for (const [dev, group] of groups) {
      if (group.length < 2) continue;
      const devs = new Set(group.map((id) => split(id).developer));
      const reasons: string[] = [];
      if (devs.size > 1)
        reasons.push(`developer spelled ${[...devs].map((d) => JSON.stringify(d || '(none)')).join(', ')}`);
      const names = new Set(group.map((id) => split(id).name));
      if (names.size > 1)
        reasons.push(
          `name spelled ${[...names].map((n) => JSON.stringify(n)).join(', ')} (case, separators or a -hf suffix)`,
        );
      out.push({ key: `${dev}/${name}`, ids: [...group].sort(), reason: reasons.join('; ') });
    }
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Every model in the store with its records, and the look-alike groups. */
export async function listModels(store: Store): Promise<ModelsReport> {
  const rows = await store.all<{
    model_id: string;
    developer: string | null;
    model_name: string | null;
    evaluation_id: string;
    record_key: string;
    origin_kind: string;
    eval_library_name: string | null;
    unnamed: string | null;
    model_path: string | null;
    provider_prefix: string | null;
    benchmarks: string[] | null;
  }>(
    `SELECT r.model_id, r.developer, r.model_name, r.evaluation_id, r.record_key, r.origin_kind,
       r.eval_library_name,
       json_extract_string(r.raw, '$.model_info.additional_details.model_unnamed') AS unnamed,
       json_extract_string(r.raw, '$.model_info.additional_details.model_path') AS model_path,
       json_extract_string(r.raw, '$.model_info.additional_details.model_provider_prefix') AS provider_prefix,
       (SELECT list(DISTINCT x.evaluation_name ORDER BY x.evaluation_name) FROM results x
         WHERE x.record_key = r.record_key) AS benchmarks
     FROM records r ORDER BY r.model_id, r.evaluation_id, r.record_key`,
  );
  const models = new Map<string, StoredModel>();
  const flagged = new Set<string>();
  for (const r of rows) {
    let m = models.get(r.model_id);
    if (!m) {
      m = { model_id: r.model_id, developer: r.developer, name: r.model_name, records: [], flags: [] };
      models.set(r.model_id, m);
    }
    if (r.unnamed === 'true' && !m.flags.includes('unnamed'))
      (m.flags.push('unnamed'), flagged.add(r.model_id));
    if (r.model_path && !m.flags.includes('from-path')) {
      m.flags.push('from-path');
      m.model_path = r.model_path;
    }
    // A developer nobody named (an API model name alone, or a server prefix such as ollama/ that is no developer).
    if (
      r.unnamed !== 'true' &&
      (r.developer ?? 'unknown') === 'unknown' &&
      !m.flags.includes('no-developer')
    ) {
      m.flags.push('no-developer');
      if (r.provider_prefix) m.provider_prefix = r.provider_prefix;
    }
    m.records.push({
      evaluation_id: r.evaluation_id,
      record_key: r.record_key,
      source: r.origin_kind,
      eval_library: r.eval_library_name,
      benchmarks: Array.isArray(r.benchmarks) ? r.benchmarks.map(String) : [],
    });
  }
  const list = [...models.values()];
  return {
    models: list,
    look_alike: lookAlikeIds(
      list.map((m) => m.model_id),
      flagged,
    ),
  };
}
