/**
 * OpenAI evals (`oaieval`) logs: JSONL with a `spec` line, event lines (`sampling`, `match`, `metrics`, ...) tagged
 * with a `sample_id`, and a `final_report` line (which evals may write anywhere in the file, buffered logging).
 *
 * One record per log. Every numeric entry of `final_report` is a result (`accuracy` with its `bootstrap_std` as the
 * standard error); one instance row per sample, emitted at its scoring event (`match`, else `metrics` with a score),
 * carrying the prompt and completion of its `sampling` event. The file is read twice: once for the spec, the report
 * and the digest, once to stream the rows.
 */
import { basename } from 'node:path';
import { DataError } from '../../errors.js';
import { fileDigest, readJsonlValues } from '../read.js';
import { isJsonObject } from '../../io/json-value.js';
import { RecordDriver } from '../driver.js';
import {
  detailString,
  epochSeconds,
  nonFiniteText,
  rowMaker,
  type ModelFacts,
  type RowInput,
} from '../record.js';
import type { ConvertedRecord, ConvertOptions, Probe, SourceConverter } from '../types.js';

type Obj = Record<string, unknown>;

/** Report keys that are the standard error of another key (evals spells it `boostrap_std` in places). */
const STD_KEYS: Record<string, string> = { bootstrap_std: 'accuracy', boostrap_std: 'accuracy' };

export const openaiEvalsSource: SourceConverter = {
  id: 'openai-evals',
  description:
    'OpenAI evals oaieval log (.jsonl: a "spec" line, sampling/match events, a "final_report" line)',
  detect(probe: Probe): boolean {
    if (probe.isDirectory || probe.head === undefined) return false;
    return (
      /^\s*\{\s*"spec"\s*:\s*\{/.test(probe.head) &&
      /"(completion_fns|eval_name|run_config)"\s*:/.test(probe.head)
    );
  },
  convert(path: string, options: ConvertOptions): AsyncIterable<ConvertedRecord> {
    return convertLog(path, options);
  },
};

/** An OpenAI API model's deployment facts (served by OpenAI, closed weights), when `name` is one; else nothing. */
export function openaiModelFacts(
  name: string,
  what: string,
): Pick<ModelFacts, 'deployment' | 'inferencePlatform'> {
  if (!/^(gpt-|o[134](-|$)|text-davinci|davinci|babbage|chatgpt)/i.test(name)) return {};
  return {
    deployment: {
      deploymentType: 'externally_managed',
      modelAvailability: 'closed_weights',
      reason: `${what} "${name}" is an OpenAI API model`,
    },
    inferencePlatform: 'openai',
  };
}

/** The time an evals log states ("2023-05-02 22:00:53.948570", UTC) as epoch seconds. */
function evalsTime(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const iso = value.replace(' ', 'T');
  return epochSeconds(/[zZ]|[+-]\d\d:\d\d$/.test(iso) ? iso : `${iso}Z`);
}

interface Pass1 {
  spec?: Obj;
  /** The run id of the log's event lines, when the spec does not state it. */
  runId?: string;
  specLine?: number;
  finalReport?: Obj;
  samples: number;
  correct: number;
  matches: number;
  eventTypes: Set<string>;
}

async function firstPass(path: string): Promise<Pass1> {
  const out: Pass1 = { samples: 0, correct: 0, matches: 0, eventTypes: new Set() };
  const scored = new Set<string>();
  for await (const { line, value } of readJsonlValues(path)) {
    if (!isJsonObject(value))
      throw new DataError('convert.openai-evals.line', `${path}:${line}: a log line must be a JSON object`);
    if (isJsonObject(value.spec)) {
      out.spec = value.spec;
      out.specLine = line;
    } else if (isJsonObject(value.final_report)) out.finalReport = value.final_report;
    else if (typeof value.type === 'string') {
      if (out.runId === undefined && typeof value.run_id === 'string') out.runId = value.run_id;
      out.eventTypes.add(value.type);
      const id = typeof value.sample_id === 'string' ? value.sample_id : undefined;
      if (id !== undefined && (value.type === 'match' || value.type === 'metrics') && !scored.has(id)) {
        scored.add(id);
        out.samples++;
      }
      if (value.type === 'match' && isJsonObject(value.data)) {
        out.matches++;
        if (value.data.correct === true) out.correct++;
      }
    }
  }
  return out;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));

/** The prompt as EEE input: the last user message as raw, the whole chat as formatted. */
function promptInput(prompt: unknown): { raw: string; formatted?: string } {
  if (typeof prompt === 'string') return { raw: prompt };
  if (Array.isArray(prompt)) {
    const users = prompt.filter((m) => isJsonObject(m) && m.role === 'user');
    const last = users[users.length - 1] ?? prompt[prompt.length - 1];
    return { raw: isJsonObject(last) ? text(last.content) : text(last), formatted: JSON.stringify(prompt) };
  }
  return { raw: text(prompt ?? '') };
}

async function* convertLog(path: string, options: ConvertOptions): AsyncGenerator<ConvertedRecord> {
  yield await buildRecord(path, options);
}

async function buildRecord(path: string, options: ConvertOptions): Promise<ConvertedRecord> {
  const pass = await firstPass(path);
  const spec = pass.spec;
  if (!spec)
    throw new DataError('convert.openai-evals.no-spec', `${path}: an oaieval log needs a "spec" line`);
  const digest = await fileDigest(path);
  const d = new RecordDriver('openai-evals', path, options);
  const { report, notes } = d;

  const { name: modelName, field: modelField, others } = specModel(spec);
  const facts: ModelFacts = {
    name: modelName,
    field: modelField,
    runKey: digest,
    ...openaiModelFacts(modelName, 'oaieval completion function'),
  };
  if (others.length > 0) {
    facts.details = { other_completion_fns: others.join(',') };
    facts.detailsField = 'spec.completion_fns.';
  }
  const model = d.model(facts);
  const ids = d.ids({ digest, defaultCollection: 'openai-evals' });

  const evalName = typeof spec.eval_name === 'string' ? spec.eval_name : basename(path);
  report.mapped('spec.eval_name', '/evaluation_results/*/evaluation_name');
  const evalSpec = get(spec, 'run_config', 'eval_spec');
  const sourceData: Obj = {
    dataset_name: typeof spec.base_eval === 'string' ? spec.base_eval : evalName,
    source_type: 'other',
    additional_details: Object.fromEntries(
      Object.entries({
        split: spec.split,
        samples_jsonl: get(evalSpec, 'args', 'samples_jsonl'),
      })
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, detailString(v)]),
    ),
  };
  if (Object.keys(sourceData.additional_details as Obj).length === 0) delete sourceData.additional_details;

  const results = d.results;
  const finalReport = pass.finalReport;
  const numSamples = pass.samples > 0 ? pass.samples : undefined;
  if (finalReport) {
    for (const [key, value] of Object.entries(finalReport)) {
      if (key in STD_KEYS) continue;
      const field = `final_report.${key}`;
      if (typeof value !== 'number') {
        report.notMapped(field, `not a number (${JSON.stringify(value)})`);
        continue;
      }
      const stdKey = Object.keys(STD_KEYS).find(
        (k) => STD_KEYS[k] === key && typeof finalReport[k] === 'number' && Number.isFinite(finalReport[k]),
      );
      if (stdKey)
        report.mapped(
          `final_report.${stdKey}`,
          `/evaluation_results/${results.results.length}/score_details/uncertainty/standard_error`,
        );
      results.add({
        evaluationName: evalName,
        metric: key,
        resultId: `${evalName}/${key}`,
        field,
        score: value,
        sourceData,
        standardError: stdKey
          ? {
              value: finalReport[stdKey] as number,
              method: `oaieval bootstrap standard deviation of the ${key} (${stdKey})`,
            }
          : undefined,
        numSamples,
        details: {
          ...(typeof evalSpec === 'object' ? { eval_class: get(evalSpec, 'cls') } : {}),
          ...nonFiniteStd(finalReport, key),
        },
        // oaieval's accuracy is the share of match events marked correct; a final_report states no count.
        declared:
          key === 'accuracy'
            ? { headline: 'pass_rate' }
            : { headlineWhy: `oaieval's ${key} is not known to be a mean of the match events` },
      });
    }
  } else if (pass.matches > 0) {
    notes.push(
      'the log has no final_report (the run did not finish?): accuracy computed from its match events',
    );
    results.add({
      evaluationName: evalName,
      metric: 'accuracy',
      resultId: `${evalName}/accuracy`,
      field: 'match events',
      score: pass.correct / pass.matches,
      sourceData,
      numSamples: pass.matches,
      details: { computed_by: 'evalkit from match events (no final_report)' },
      declared: { headlineWhy: 'the log has no final_report (the accuracy was computed by evalkit)' },
    });
  }
  if (results.results.length === 0)
    throw new DataError(
      'convert.openai-evals.empty',
      `${path}: no final_report and no match events: nothing to convert`,
    );

  const sourceDetails: Obj = { log_file: basename(path) };
  for (const [k, v] of Object.entries(spec)) {
    if (k === 'completion_fns' || k === 'eval_name' || v === undefined) continue;
    if (k === 'run_config' && isJsonObject(v)) {
      for (const [rk, rv] of Object.entries(v)) {
        if (rk === 'completion_fns' || rv === undefined) continue;
        sourceDetails[`run_config.${rk}`] = rv;
        report.details(`spec.run_config.${rk}`, `/source_metadata/additional_details/run_config.${rk}`);
      }
      continue;
    }
    sourceDetails[k] = v;
    report.details(`spec.${k}`, `/source_metadata/additional_details/${k}`);
  }
  const created = evalsTime(spec.created_at);
  const runId = typeof spec.run_id === 'string' ? spec.run_id : pass.runId;
  d.run({
    sourceRunId: runId ?? `sha256:${digest}`,
    status: finalReport ? 'complete' : 'partial',
    scoredSamples: pass.samples,
  });
  const aggregate = d.aggregate({
    sourceName: 'OpenAI evals (oaieval) log',
    sourceDetails,
    evalLibrary: { name: 'openai-evals', version: 'unknown' },
    retrievedTimestamp: created ? { value: created, field: 'spec.created_at' } : undefined,
    evaluationTimestamp: created ? { value: created, field: 'spec.created_at' } : undefined,
    hasRows: pass.samples > 0,
  });
  report.inferred(
    'eval library version',
    '/eval_library/version',
    'an oaieval log does not state the evals version',
  );
  for (const t of pass.eventTypes) {
    if (t === 'sampling' || t === 'match' || t === 'metrics') report.mapped(`${t} events`, 'instance rows');
    else report.details(`${t} events`, 'instance row metadata (event.<type>)');
  }

  const resultId = results.results.some((r) => r.evaluation_result_id === `${evalName}/accuracy`)
    ? `${evalName}/accuracy`
    : (results.results[0].evaluation_result_id as string);
  const makeRow = rowMaker(ids.evaluationId, model.id);
  const rows =
    pass.samples === 0
      ? undefined
      : async function* (): AsyncGenerator<Obj> {
          let nonFinite = 0;
          // Events of a sample wait here until its scoring event; then the row is emitted and the entry dropped.
          const pending = new Map<string, Obj[]>();
          const emitted = new Map<string, number>();
          for await (const { value } of readJsonlValues(path)) {
            if (!isJsonObject(value) || typeof value.type !== 'string' || typeof value.sample_id !== 'string')
              continue;
            const id = value.sample_id;
            const events = pending.get(id) ?? [];
            events.push(value);
            const scoring = value.type === 'match' || (value.type === 'metrics' && isJsonObject(value.data));
            if (!scoring) {
              pending.set(id, events);
              continue;
            }
            pending.delete(id);
            const n = (emitted.get(id) ?? 0) + 1;
            emitted.set(id, n);
            const row = sampleRow(evalName, resultId, n === 1 ? id : `${id}#${n}`, events);
            if (row === undefined) nonFinite++;
            else yield makeRow(row);
          }
          if (nonFinite > 0)
            report.notMapped(
              'metrics events (data.score)',
              `${nonFinite} sample(s) scored NaN or ±Infinity, which is not a score: no row written for them`,
            );
        };
  if (pass.samples > 0)
    notes.push(
      'instance rows: one per sample, at its match (or metrics) event, with the prompt and completion of its sampling event',
    );
  return d.record({ aggregate, rows });
}

/**
 * The model an oaieval spec names, in every spec style: `completion_fns` (and `run_config.completion_fns`), the
 * legacy `model_name`, `model_names` (`{"completions": [...]}`) and `run_config.model_specs`, else unnamed.
 */
function specModel(spec: Obj): { name: string; field: string; others: string[] } {
  const list = (v: unknown): string[] =>
    Array.isArray(v) ? v.filter((x) => typeof x === 'string' && x !== '').map(text) : [];
  const fns = list(spec.completion_fns);
  if (fns.length > 0) return { name: fns[0], field: 'spec.completion_fns[0]', others: fns.slice(1) };
  const runFns = list(get(spec, 'run_config', 'completion_fns'));
  if (runFns.length > 0)
    return { name: runFns[0], field: 'spec.run_config.completion_fns[0]', others: runFns.slice(1) };
  if (typeof spec.model_name === 'string' && spec.model_name !== '')
    return { name: spec.model_name, field: 'spec.model_name', others: [] };
  const names = spec.model_names;
  if (isJsonObject(names))
    for (const [role, v] of Object.entries(names)) {
      const l = typeof v === 'string' ? [v] : list(v);
      if (l.length > 0) return { name: l[0], field: `spec.model_names.${role}[0]`, others: l.slice(1) };
    }
  // Early-2023 run_config.model_specs: {"completions_": [{"name": ..., "model": ...}], "completion": {...}}.
  const specs = get(spec, 'run_config', 'model_specs');
  if (isJsonObject(specs))
    for (const [role, v] of Object.entries(specs)) {
      const first = Array.isArray(v) ? v[0] : v;
      const name = isJsonObject(first) ? (first.name ?? first.model) : undefined;
      if (typeof name === 'string' && name !== '')
        return { name, field: `spec.run_config.model_specs.${role}`, others: [] };
    }
  const fromNames = list(names);
  if (fromNames.length > 0)
    return { name: fromNames[0], field: 'spec.model_names[0]', others: fromNames.slice(1) };
  return { name: 'unknown', field: 'spec.completion_fns', others: [] };
}

/** A standard error of `key` that is NaN or ±Infinity, kept as a detail string. */
function nonFiniteStd(report: Obj, key: string): Obj {
  for (const [k, of] of Object.entries(STD_KEYS)) {
    const v = report[k];
    if (of === key && typeof v === 'number' && !Number.isFinite(v)) return { [k]: nonFiniteText(v) };
  }
  return {};
}

const get = (o: unknown, ...keys: string[]): unknown => {
  let v = o;
  for (const k of keys) v = isJsonObject(v) ? v[k] : undefined;
  return v;
};

/** The row of a sample at its scoring event; undefined when its score is NaN or ±Infinity (not a score). */
function sampleRow(
  evalName: string,
  resultId: string,
  sampleId: string,
  events: Obj[],
): RowInput | undefined {
  const scoring = events[events.length - 1];
  const data = isJsonObject(scoring.data) ? scoring.data : {};
  const sampling = events.find((e) => e.type === 'sampling');
  const samplingData = isJsonObject(sampling?.data) ? sampling.data : {};
  const input = promptInput(samplingData.prompt ?? data.prompt ?? '');
  const expected = data.expected;
  const reference = Array.isArray(expected)
    ? expected.map(text)
    : expected === undefined || expected === null
      ? []
      : [text(expected)];
  const sampled = samplingData.sampled ?? data.sampled;
  const outputs = Array.isArray(sampled) ? sampled.map(text) : sampled === undefined ? [] : [text(sampled)];
  let score: number;
  let isCorrect: boolean;
  if (scoring.type === 'match') {
    isCorrect = data.correct === true;
    score = isCorrect ? 1 : 0;
  } else {
    const s =
      typeof data.score === 'number' ? data.score : typeof data.score === 'boolean' ? Number(data.score) : 0;
    if (!Number.isFinite(s)) return undefined;
    score = s;
    isCorrect = s === 1;
  }
  const metadata: Obj = { event_ids: events.map((e) => e.event_id).join(',') };
  if (data.options !== undefined) metadata.options = data.options;
  if (scoring.created_at !== undefined) metadata.created_at = scoring.created_at;
  for (const e of events)
    if (e.type !== 'sampling' && e !== scoring) metadata[`event.${text(e.type)}`] = e.data;
  for (const [k, v] of Object.entries(samplingData))
    if (k !== 'prompt' && k !== 'sampled') metadata[`sampling.${k}`] = v;
  for (const [k, v] of Object.entries(data))
    if (!['expected', 'sampled', 'correct', 'options', 'prompt'].includes(k))
      metadata[`${text(scoring.type)}.${k}`] = v;
  const picked = data.picked ?? data.choice;
  return {
    evaluationName: evalName,
    evaluationResultId: resultId,
    sampleId,
    input: {
      raw: input.raw,
      ...(input.formatted !== undefined ? { formatted: input.formatted } : {}),
      reference,
    },
    output: { raw: outputs },
    answerAttribution: [
      {
        turn_idx: 0,
        source: 'output.raw',
        extracted_value: picked === undefined || picked === null ? '' : text(picked),
        extraction_method:
          scoring.type === 'match' ? 'oaieval match (picked)' : `oaieval ${text(scoring.type)}`,
        is_terminal: true,
      },
    ],
    evaluation: { score, is_correct: isCorrect },
    metadata,
  };
}
