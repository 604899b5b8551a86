/**
 * EEE 0.1.0 / 0.2.0 / 0.2.1 / 0.2.2 → 0.3.0, as pure functions over parsed documents (aggregate records and instance rows).
 * Every change is recorded as a note; an inferred value is always also marked in the record itself
 * (source_metadata.additional_details.evalkit_migration). Scores are never changed. A document that cannot be
 * brought to 0.3.0 (e.g. a "json" samples file) gets a problem instead of a guess.
 */
import { matchingSampleHashRecipe, sampleHash } from './sample-hash.js';
import { isObject, type Json } from '../../io/json-value.js';

export const EEE_CURRENT_VERSION = '0.3.0';
export const EEE_MIGRATABLE_VERSIONS = ['0.1.0', '0.2.0', '0.2.1', '0.2.2'] as const;

export type NoteKind = 'inferred' | 'renamed' | 'converted' | 'moved' | 'unmapped';

export interface MigrationNote {
  /** JSON pointer of the value in the migrated document. */
  pointer: string;
  kind: NoteKind;
  detail: string;
  /** For a row of a JSONL file: its line. */
  line?: number;
}

export interface MigrationOutcome<T = Record<string, unknown>> {
  value: T;
  from: string;
  to: string;
  /** False when the document was already current (value is the input, untouched). */
  changed: boolean;
  notes: MigrationNote[];
  /** Why the document cannot be fully migrated; non-empty means "not migrated". */
  problems: string[];
}

/** JSON-encodes a non-string value for a string-valued map (objects and numbers as JSON). */
export function stringifyValue(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? 'null');
}

/** Copy of `obj` with `key: value` inserted right after `after` (or at the end). */
function insertAfter(obj: Json, after: string, key: string, value: unknown): Json {
  const out: Json = {};
  let placed = false;
  for (const [k, v] of Object.entries(obj)) {
    if (k === key) continue;
    out[k] = v;
    if (k === after) {
      out[key] = value;
      placed = true;
    }
  }
  if (!placed) out[key] = value;
  return out;
}

/** Copy of `obj` with `from` renamed to `to`, keeping the key's position. */
function renameKey(obj: Json, from: string, to: string): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(obj)) out[k === from ? to : k] = v;
  return out;
}

const esc = (k: string): string => k.replace(/~/g, '~0').replace(/\//g, '~1');

/** Visits every object at a dotted path where "*" walks the items of an array. */
function each(root: Json, path: string, visit: (obj: Json, pointer: string) => void): void {
  const parts = path.split('.');
  const walk = (value: unknown, i: number, pointer: string): void => {
    if (i === parts.length) {
      if (isObject(value)) visit(value, pointer);
      return;
    }
    const part = parts[i];
    if (part === '*') {
      if (Array.isArray(value)) value.forEach((v, j) => walk(v, i + 1, `${pointer}/${j}`));
    } else if (isObject(value) && part in value) walk(value[part], i + 1, `${pointer}/${esc(part)}`);
  };
  walk(root, 0, '');
}

/** Every map that is string-valued from 0.2.1 on. */
const STRING_MAPS = [
  'source_metadata.additional_details',
  'eval_library.additional_details',
  'model_info.additional_details',
  'evaluation_results.*.source_data.additional_details',
  'evaluation_results.*.metric_config.additional_details',
  'evaluation_results.*.metric_config.llm_scoring.additional_details',
  'evaluation_results.*.metric_config.llm_scoring.judges.*.additional_details',
  'evaluation_results.*.metric_config.llm_scoring.judges.*.model_info.additional_details',
  'evaluation_results.*.score_details.details',
  'evaluation_results.*.generation_config.additional_details',
  'evaluation_results.*.generation_config.generation_args.agentic_eval_config.additional_details',
  'evaluation_results.*.generation_config.generation_args.agentic_eval_config.available_tools.*.parameters',
  'evaluation_results.*.generation_config.generation_args.eval_plan.config',
  'detailed_evaluation_results.additional_details',
];

/** The keys generation_args may hold once it is closed (0.2.1 on). */
const GENERATION_ARGS_KEYS = new Set([
  'temperature',
  'top_p',
  'top_k',
  'max_tokens',
  'execution_command',
  'reasoning',
  'prompt_template',
  'agentic_eval_config',
  'eval_plan',
  'eval_limits',
  'sandbox',
  'max_attempts',
  'incorrect_attempt_feedback',
]);

export const SAMPLES_FILE_PATH =
  /^data\/[^/]+\/[^/]+\/[^/]+\/[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-4[0-9A-Fa-f]{3}-[89ABab][0-9A-Fa-f]{3}-[0-9A-Fa-f]{12}_samples\.jsonl$/;

/** The version an aggregate or row declares ("instance_level_eval_0.2.1" → "0.2.1"). */
export function declaredEeeVersion(doc: Json): string | undefined {
  const v = doc.schema_version;
  if (typeof v !== 'string') return undefined;
  return v.replace(/^instance_level_eval_/, '');
}

function stringifyMaps(doc: Json, paths: string[], notes: MigrationNote[], prefix = ''): void {
  for (const path of paths) {
    const dot = path.lastIndexOf('.');
    const [head, last] = dot === -1 ? ['', path] : [path.slice(0, dot), path.slice(dot + 1)];
    const visit = (owner: Json, pointer: string): void => {
      const map = owner[last];
      if (!isObject(map)) return;
      for (const [k, v] of Object.entries(map)) {
        if (typeof v === 'string') continue;
        map[k] = stringifyValue(v);
        notes.push({
          pointer: `${pointer}/${esc(last)}/${esc(k)}`,
          kind: 'converted',
          detail: 'JSON-encoded as a string',
        });
      }
    };
    if (head === '') visit(doc, prefix);
    else each(doc, head, (owner, pointer) => visit(owner, prefix + pointer));
  }
}

function stringifyList(list: unknown, pointer: string, notes: MigrationNote[]): void {
  if (!Array.isArray(list)) return;
  list.forEach((v, i) => {
    if (typeof v === 'string') return;
    list[i] = stringifyValue(v);
    notes.push({ pointer: `${pointer}/${i}`, kind: 'converted', detail: 'JSON-encoded as a string' });
  });
}

/** The outcome for a document that is already current, or of a version evalkit cannot migrate; else undefined. */
function unchangedOutcome(input: Json, from: string): MigrationOutcome | undefined {
  if (from === EEE_CURRENT_VERSION)
    return { value: input, from, to: from, changed: false, notes: [], problems: [] };
  if ((EEE_MIGRATABLE_VERSIONS as readonly string[]).includes(from)) return undefined;
  const declared = JSON.stringify(input.schema_version ?? null);
  return {
    value: input,
    from,
    to: EEE_CURRENT_VERSION,
    changed: false,
    notes: [],
    problems: [
      `schema_version ${declared} is not one evalkit migrates (${EEE_MIGRATABLE_VERSIONS.join(', ')})`,
    ],
  };
}

/** Migrates an aggregate record to 0.3.0. The input is not modified. */
export function migrateEeeAggregate(input: Json): MigrationOutcome {
  const from = declaredEeeVersion(input) ?? 'unknown';
  const early = unchangedOutcome(input, from);
  if (early) return early;
  const notes: MigrationNote[] = [];
  const problems: string[] = [];
  let doc: Json = structuredClone(input);
  const inferred: string[] = [];
  doc.schema_version = EEE_CURRENT_VERSION;
  notes.push({ pointer: '/schema_version', kind: 'converted', detail: `${from} → ${EEE_CURRENT_VERSION}` });

  if (from === '0.1.0') doc = migrate010(doc, notes, inferred);

  // 0.2.0 → 0.2.1
  if (!isObject(doc.eval_library)) {
    doc = insertAfter(doc, 'source_metadata', 'eval_library', { name: 'unknown', version: 'unknown' });
    inferred.push('/eval_library/name', '/eval_library/version');
  } else {
    for (const k of ['name', 'version'])
      if (typeof doc.eval_library[k] !== 'string') {
        doc.eval_library[k] = 'unknown';
        inferred.push(`/eval_library/${k}`);
      }
  }
  each(doc, 'evaluation_results.*.generation_config', (gc, pointer) => {
    const args = gc.generation_args;
    if (!isObject(args)) return;
    for (const key of Object.keys(args)) {
      if (GENERATION_ARGS_KEYS.has(key)) continue;
      gc.additional_details = isObject(gc.additional_details) ? gc.additional_details : {};
      gc.additional_details[key] = stringifyValue(args[key]);
      delete args[key];
      notes.push({
        pointer: `${pointer}/additional_details/${esc(key)}`,
        kind: 'moved',
        detail: `from generation_args.${key} (generation_args is closed from 0.2.1)`,
      });
    }
  });
  each(doc, 'evaluation_results.*.generation_config.generation_args.eval_plan', (plan, pointer) =>
    stringifyList(plan.steps, `${pointer}/steps`, notes),
  );
  each(doc, 'evaluation_results.*.source_data', (sd, pointer) =>
    stringifyList(sd.sample_ids, `${pointer}/sample_ids`, notes),
  );

  // 0.2.2 → 0.3.0: deployment axes for the model and every judge.
  const axes = (modelInfo: unknown, pointer: string): void => {
    if (!isObject(modelInfo)) return;
    if (!isObject(modelInfo.additional_details)) modelInfo.additional_details = {};
    for (const k of ['deployment_type', 'model_availability'])
      if (!(k in modelInfo.additional_details)) {
        modelInfo.additional_details[k] = 'unknown';
        inferred.push(`${pointer}/additional_details/${k}`);
      }
  };
  axes(doc.model_info, '/model_info');
  each(doc, 'evaluation_results.*.metric_config.llm_scoring.judges.*', (judge, pointer) =>
    axes(judge.model_info, `${pointer}/model_info`),
  );
  stringifyMaps(doc, STRING_MAPS, notes);

  const der = doc.detailed_evaluation_results;
  if (der === null) {
    delete doc.detailed_evaluation_results;
    notes.push({
      pointer: '/detailed_evaluation_results',
      kind: 'converted',
      detail: 'null removed (0.3.0 needs an object or nothing)',
    });
  } else if (isObject(der)) {
    if (der.format !== 'jsonl')
      problems.push(
        `detailed_evaluation_results.format is ${JSON.stringify(der.format ?? null)}; 0.3.0 accepts only "jsonl" (convert the samples file first)`,
      );
    if (typeof der.file_path !== 'string' || !SAMPLES_FILE_PATH.test(der.file_path))
      problems.push(
        `detailed_evaluation_results.file_path ${JSON.stringify(der.file_path ?? null)} is not data/<collection>/<developer>/<model>/<uuid4>_samples.jsonl (migrate with --layout to move and rename the files)`,
      );
  }

  for (const pointer of inferred)
    if (!notes.some((n) => n.pointer === pointer && n.kind === 'inferred'))
      notes.push({ pointer, kind: 'inferred', detail: '"unknown" (not recorded in the source)' });
  // Mark the migration inside the record too.
  if (isObject(doc.source_metadata)) {
    const details = isObject(doc.source_metadata.additional_details)
      ? doc.source_metadata.additional_details
      : {};
    details.evalkit_migration = JSON.stringify({ from, inferred });
    doc.source_metadata.additional_details = details;
    notes.push({
      pointer: '/source_metadata/additional_details/evalkit_migration',
      kind: 'inferred',
      detail: 'records the source version and the inferred fields',
    });
  }
  return { value: doc, from, to: EEE_CURRENT_VERSION, changed: true, notes, problems };
}

/**
 * 0.1.0 → 0.2.0 (before the 0.2.x steps run): the record-level `source_data` becomes each result's (a URL list as
 * `url`, the Hugging Face object as `hf_dataset`; the dataset is named after the evaluation, as 0.1.0 names none for a
 * URL list), `inference_engine` becomes `{name}`, and `detailed_evaluation_results_per_samples`, which 0.2.0 has no
 * place for, is kept whole (JSON text) in source_metadata.additional_details. Nothing is dropped.
 */
function migrate010(input: Json, notes: MigrationNote[], inferred: string[]): Json {
  let doc = input;
  const top = doc.source_data;
  const results = Array.isArray(doc.evaluation_results) ? doc.evaluation_results : [];
  results.forEach((result: unknown, i: number) => {
    if (!isObject(result) || 'source_data' in result) return;
    const pointer = `/evaluation_results/${i}/source_data`;
    const name = typeof result.evaluation_name === 'string' ? result.evaluation_name : 'unknown';
    let sd: Json;
    let named = false;
    if (isObject(top)) {
      const { dataset_name, ...rest } = structuredClone(top);
      named = typeof dataset_name === 'string';
      sd = { dataset_name: named ? dataset_name : name, source_type: 'hf_dataset', ...rest };
    } else if (Array.isArray(top) && top.length > 0) {
      sd = { dataset_name: name, source_type: 'url', url: structuredClone(top) };
    } else {
      sd = { dataset_name: name, source_type: 'other' };
      if (Array.isArray(top))
        notes.push({ pointer, kind: 'converted', detail: 'an empty URL list: source_type "other"' });
    }
    const at = result;
    const moved = insertAfter(at, 'evaluation_name', 'source_data', sd);
    for (const k of Object.keys(at)) delete at[k];
    Object.assign(at, moved);
    notes.push({
      pointer,
      kind: 'moved',
      detail: 'from the record-level source_data (each result has its own from 0.2.0)',
    });
    if (!named) {
      inferred.push(`${pointer}/dataset_name`);
      notes.push({
        pointer: `${pointer}/dataset_name`,
        kind: 'inferred',
        detail: 'the evaluation_name (0.1.0 names no dataset for a URL list)',
      });
    }
  });
  if ('source_data' in doc) {
    const { source_data: _gone, ...rest } = doc;
    doc = rest;
  }
  const mi = doc.model_info;
  if (isObject(mi) && typeof mi.inference_engine === 'string') {
    mi.inference_engine = { name: mi.inference_engine };
    notes.push({
      pointer: '/model_info/inference_engine/name',
      kind: 'converted',
      detail: 'the 0.1.0 string as the engine name',
    });
  }
  each(doc, 'evaluation_results.*.generation_config', (gc, pointer) => {
    if (typeof gc.additional_details !== 'string') return;
    gc.additional_details = { details: gc.additional_details };
    notes.push({
      pointer: `${pointer}/additional_details/details`,
      kind: 'converted',
      detail: 'the 0.1.0 text kept under "details" (a map from 0.2.0)',
    });
  });
  if ('detailed_evaluation_results_per_samples' in doc) {
    const { detailed_evaluation_results_per_samples: perSamples, ...rest } = doc;
    doc = rest;
    if (isObject(doc.source_metadata)) {
      const details = isObject(doc.source_metadata.additional_details)
        ? doc.source_metadata.additional_details
        : {};
      details.detailed_evaluation_results_per_samples = stringifyValue(perSamples);
      doc.source_metadata.additional_details = details;
      notes.push({
        pointer: '/source_metadata/additional_details/detailed_evaluation_results_per_samples',
        kind: 'moved',
        detail: 'from the top level (0.2.0 has no place for it; kept as JSON text)',
      });
    }
  }
  return doc;
}

const INSTANCE_KEYS = new Set([
  'schema_version',
  'evaluation_id',
  'model_id',
  'evaluation_name',
  'evaluation_result_id',
  'sample_id',
  'sample_hash',
  'interaction_type',
  'input',
  'output',
  'messages',
  'answer_attribution',
  'evaluation',
  'token_usage',
  'performance',
  'error',
  'metadata',
]);

/** Migrates one instance-level row to 0.3.0. The input is not modified. */
export function migrateEeeInstanceRow(input: Json): MigrationOutcome {
  const from = declaredEeeVersion(input) ?? 'unknown';
  const early = unchangedOutcome(input, from);
  if (early) return early;
  const notes: MigrationNote[] = [];
  let row: Json = structuredClone(input);
  row.schema_version = EEE_CURRENT_VERSION;
  notes.push({
    pointer: '/schema_version',
    kind: 'converted',
    detail: `${String(input.schema_version)} → ${EEE_CURRENT_VERSION}`,
  });
  if ('interactions' in row) {
    row = renameKey(row, 'interactions', 'messages');
    notes.push({ pointer: '/messages', kind: 'renamed', detail: 'from interactions' });
  }
  if (typeof row.sample_id === 'number') {
    row.sample_id = String(row.sample_id);
    notes.push({ pointer: '/sample_id', kind: 'converted', detail: 'number written as a string' });
  }
  const wrap = (owner: unknown, key: string, pointer: string, whenMissing?: unknown[]): void => {
    if (!isObject(owner)) return;
    const v = owner[key];
    if (v === undefined || v === null) {
      if (whenMissing) {
        owner[key] = whenMissing;
        notes.push({ pointer, kind: 'inferred', detail: 'missing, set to []' });
      }
      return;
    }
    if (!Array.isArray(v)) {
      owner[key] = [stringifyValue(v)];
      notes.push({ pointer, kind: 'converted', detail: 'scalar wrapped in a list' });
    } else stringifyList(v, pointer, notes);
  };
  wrap(row.input, 'reference', '/input/reference', []);
  if (isObject(row.input)) stringifyList(row.input.choices, '/input/choices', notes);
  wrap(row.output, 'raw', '/output/raw');
  wrap(row.output, 'reasoning_trace', '/output/reasoning_trace');
  if (isObject(row.evaluation) && typeof row.evaluation.score === 'boolean') {
    row.evaluation.score = numericScore(row.evaluation.score);
    notes.push({
      pointer: '/evaluation/score',
      kind: 'converted',
      detail: 'boolean written as 1/0 (same value)',
    });
  }
  if (Array.isArray(row.messages))
    row.messages.forEach((m: unknown, i: number) => {
      if (!isObject(m)) return;
      if (typeof m.tool_call_id === 'string') {
        m.tool_call_id = [m.tool_call_id];
        notes.push({
          pointer: `/messages/${i}/tool_call_id`,
          kind: 'converted',
          detail: 'scalar wrapped in a list',
        });
      }
      if (Array.isArray(m.tool_calls))
        m.tool_calls.forEach((c: unknown, j: number) => {
          if (isObject(c)) stringifyMaps(c, ['arguments'], notes, `/messages/${i}/tool_calls/${j}`);
        });
    });
  for (const key of Object.keys(row)) {
    if (INSTANCE_KEYS.has(key)) continue;
    row.metadata = isObject(row.metadata) ? row.metadata : {};
    row.metadata[key] = stringifyValue(row[key]);
    delete row[key];
    notes.push({
      pointer: `/metadata/${esc(key)}`,
      kind: 'moved',
      detail: `from the top-level ${key} (closed from 0.2.1)`,
    });
  }
  stringifyMaps(row, ['metadata'], notes);
  if (isObject(row.performance))
    stringifyMaps(row.performance, ['additional_details'], notes, '/performance');
  if (typeof row.sample_hash === 'string' && isObject(row.input)) {
    const canonical = sampleHash(row.input);
    const recipe = matchingSampleHashRecipe(row.input, row.sample_hash);
    if (row.sample_hash !== canonical && recipe && recipe.id !== 'canonical') {
      row.sample_hash = canonical;
      notes.push({
        pointer: '/sample_hash',
        kind: 'converted',
        detail: `recomputed (was the older "${recipe.id}" recipe)`,
      });
    }
  }
  return { value: row, from, to: EEE_CURRENT_VERSION, changed: true, notes, problems: [] };
}

/**
 * An instance row's `evaluation.score` as a number: 0.2.0 rows may hold a boolean, which is 1 / 0 (what migration
 * writes, and what `stats` reads); undefined for anything else that is not a finite number.
 */
export function numericScore(score: unknown): number | undefined {
  if (typeof score === 'boolean') return score ? 1 : 0;
  return typeof score === 'number' && Number.isFinite(score) ? score : undefined;
}
