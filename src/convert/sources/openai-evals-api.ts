/**
 * OpenAI Evals API output items (`GET /evals/{eval_id}/runs/{run_id}/output_items`, objects `"object":
 * "eval.run.output_item"`) into EEE 0.3.0, optionally with the run they belong to (`"object": "eval.run"`).
 *
 * Input: a JSON array of items (and run objects), a list page (`{"object": "list", "data": [...]}`), or JSONL with
 * one object a line. The run object may be in the same file or beside it, in `run.json` or `<run_id>.json` of the
 * same folder.
 *
 * One record per (run, model). Each testing criterion (the grader's `name` in the items' `results[]`) is an
 * evaluation with two results: the pass rate (passed / graded) and the mean score. One instance row per item and
 * criterion (its score, passed as is_correct), belonging to the mean score. An errored item (`sample.error` with a
 * code or message, or status `error`) is counted, not scored: no row, and the counts say how many. The run's own
 * counts (`result_counts`, `per_testing_criteria_results`) are kept beside the counts of the rows (`declared_*` and
 * `rows_*` in each result's details, see `declaredCounts`), and a difference is a note.
 */
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { DataError } from '../../errors.js';
import { RecordDriver } from '../driver.js';
import { parseJsonSource, readBytes, readJsonlValues } from '../read.js';
import { decodeUtf8 } from '../../io/utf8.js';
import { contentDigest, epochSeconds, rowMaker, type RowInput } from '../record.js';
import { finite, isCount, isObj, parseSourceJson, tokenUsage, type Obj } from '../source-json.js';
import type { ConvertedRecord, ConvertOptions, Probe, SourceConverter } from '../types.js';
import { openaiModelFacts } from './openai-evals.js';

const ITEM = 'eval.run.output_item';
const RUN = 'eval.run';

function detect(probe: Probe): boolean {
  if (probe.isDirectory || probe.head === undefined) return false;
  return /^\s*[[{]/.test(probe.head) && /"object"\s*:\s*"eval\.run\.output_item"/.test(probe.head);
}

/** Pass and fail counts. */
export interface PassCounts {
  passed: number;
  failed: number;
}

/**
 * What the run declares about itself, for reconciliation with the rows: its item counts (`result_counts`) and each
 * testing criterion's pass and fail counts (`per_testing_criteria_results`, keyed by the grader name they belong
 * to). Undefined parts are what the run object does not say (or there is no run object).
 */
export interface DeclaredCounts {
  items?: PassCounts & { errored: number; total: number };
  criteria: Map<string, PassCounts>;
}

interface Item {
  value: Obj;
  /** Where it is in the file: `[i]` of the array, or `line N`. */
  at: string;
}

interface Parsed {
  items: Item[];
  runs: Obj[];
}

async function readObjects(path: string): Promise<{ parsed: Parsed; digest: string }> {
  const bytes = await readBytes(path);
  const text = decodeUtf8(bytes, path).trimStart();
  const parsed: Parsed = { items: [], runs: [] };
  const take = (v: unknown, at: string): void => {
    if (!isObj(v)) throw new DataError('convert.openai-evals-api', `${path}: ${at}: not a JSON object`);
    if (v.object === ITEM) parsed.items.push({ value: v, at });
    else if (v.object === RUN) parsed.runs.push(v);
    else if (v.object === 'list' && Array.isArray(v.data))
      v.data.forEach((x, i) => take(x, `${at}.data[${i}]`));
    else
      throw new DataError(
        'convert.openai-evals-api',
        `${path}: ${at}: expected an "${ITEM}" or "${RUN}" object, found ${JSON.stringify(v.object ?? null)}`,
      );
  };
  // JSONL when the first line is a whole object; else one document (an array, a list page, one object).
  if (!text.startsWith('[') && isJsonLine(text.split('\n', 1)[0]!)) {
    for await (const { line, value } of readJsonlValues(path)) take(value, `line ${line}`);
  } else {
    const { value } = parseJsonSource(path, bytes);
    if (Array.isArray(value)) value.forEach((v, i) => take(v, `[${i}]`));
    else take(value, 'the document');
  }
  return { parsed, digest: contentDigest(bytes) };
}

function isJsonLine(line: string): boolean {
  try {
    return isObj(JSON.parse(line));
  } catch {
    return false;
  }
}

/** The run object beside the file: `run.json` or `<run_id>.json` in its folder, when it is an eval.run of that id. */
async function runBeside(path: string, runId: string): Promise<{ run: Obj; file: string } | undefined> {
  for (const name of ['run.json', `${runId}.json`]) {
    const file = join(dirname(path), name);
    if (file === path) continue;
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      continue;
    }
    const value = parseSourceJson(text, file);
    if (isObj(value) && value.object === RUN && value.id === runId) return { run: value, file };
  }
  return undefined;
}

/** The run's declared counts (see DeclaredCounts); a criterion is matched to a grader name it equals or starts with `name-`. */
export function declaredCounts(run: Obj | undefined, graders: string[]): DeclaredCounts {
  const out: DeclaredCounts = { criteria: new Map() };
  if (run === undefined) return out;
  const rc = run.result_counts;
  if (isObj(rc) && isCount(rc.passed) && isCount(rc.failed) && isCount(rc.total))
    out.items = {
      passed: rc.passed,
      failed: rc.failed,
      errored: isCount(rc.errored) ? rc.errored : 0,
      total: rc.total,
    };
  const per = Array.isArray(run.per_testing_criteria_results)
    ? run.per_testing_criteria_results.filter(isObj)
    : [];
  for (const c of per) {
    if (typeof c.testing_criteria !== 'string' || !isCount(c.passed) || !isCount(c.failed)) continue;
    const name = graders.find(
      (g) => c.testing_criteria === g || (c.testing_criteria as string).startsWith(`${g}-`),
    );
    if (name !== undefined) out.criteria.set(name, { passed: c.passed, failed: c.failed });
  }
  return out;
}

const errorOf = (item: Obj): string | undefined => {
  const sample = isObj(item.sample) ? item.sample : {};
  const e = sample.error;
  if (
    isObj(e) &&
    ((typeof e.code === 'string' && e.code !== '') || (typeof e.message === 'string' && e.message !== ''))
  )
    return [e.code, e.message].filter((x) => typeof x === 'string' && x !== '').join(': ');
  if (item.status === 'error' || item.status === 'errored') return `status ${String(item.status)}`;
  return undefined;
};

const modelOf = (item: Obj, run: Obj | undefined): string => {
  const sample = isObj(item.sample) ? item.sample : {};
  if (typeof sample.model === 'string' && sample.model !== '') return sample.model;
  if (run && typeof run.model === 'string' && run.model !== '') return run.model;
  const ds = run && isObj(run.data_source) ? run.data_source : {};
  return typeof ds.model === 'string' && ds.model !== '' ? ds.model : 'unknown';
};

const text = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));

/** The chat as EEE input: the last user message as raw, the whole chat as formatted. */
function chatInput(messages: unknown): { raw: string; formatted?: string } {
  if (!Array.isArray(messages) || messages.length === 0) return { raw: '' };
  const users = messages.filter((m) => isObj(m) && m.role === 'user');
  const last = users[users.length - 1] ?? messages[messages.length - 1];
  return { raw: isObj(last) ? text(last.content) : text(last), formatted: JSON.stringify(messages) };
}

/** Datasource item keys that commonly hold the expected answer (graders reference them as {{item.KEY}}). */
const REFERENCE_KEYS = ['reference', 'ground_truth', 'expected', 'answer', 'label', 'correct_label', 'ideal'];

function usageOf(sample: Obj): Obj | undefined {
  const u = isObj(sample.usage) ? sample.usage : {};
  return tokenUsage({
    input: u.prompt_tokens,
    output: u.completion_tokens,
    total: u.total_tokens,
    cacheRead: u.cached_tokens,
  });
}

interface Group {
  runId: string;
  model: string;
  items: Item[];
}

async function* convertItems(path: string, options: ConvertOptions): AsyncGenerator<ConvertedRecord> {
  const { parsed, digest } = await readObjects(path);
  if (parsed.items.length === 0)
    throw new DataError('convert.openai-evals-api', `${path}: no "${ITEM}" object: nothing to convert`);
  const groups = new Map<string, Group>();
  const runs = new Map(parsed.runs.filter((r) => typeof r.id === 'string').map((r) => [r.id as string, r]));
  for (const item of parsed.items) {
    const v = item.value;
    if (typeof v.run_id !== 'string' || v.run_id === '')
      throw new DataError('convert.openai-evals-api', `${path}: ${item.at}: an output item needs a "run_id"`);
    if (!Array.isArray(v.results))
      throw new DataError(
        'convert.openai-evals-api',
        `${path}: ${item.at}: an output item needs "results" (an array)`,
      );
    const model = modelOf(v, runs.get(v.run_id));
    const key = `${v.run_id}\u0000${model}`;
    const g = groups.get(key) ?? { runId: v.run_id, model, items: [] };
    g.items.push(item);
    groups.set(key, g);
  }
  for (const g of [...groups.values()].sort((a, b) => (a.runId + a.model < b.runId + b.model ? -1 : 1))) {
    let run = runs.get(g.runId);
    let runFile: string | undefined;
    if (run === undefined) {
      const beside = await runBeside(path, g.runId);
      if (beside) ({ run, file: runFile } = beside);
    }
    yield buildRecord(path, digest, g, run, runFile, options);
  }
}

function buildRecord(
  path: string,
  digest: string,
  g: Group,
  run: Obj | undefined,
  runFile: string | undefined,
  options: ConvertOptions,
): ConvertedRecord {
  const d = new RecordDriver('openai-evals-api', path, options);
  const { report, notes } = d;
  const first = g.items[0]!.value;
  const evalId = typeof first.eval_id === 'string' ? first.eval_id : undefined;
  const evalName =
    run && typeof run.name === 'string' && run.name !== '' ? run.name : (evalId ?? basename(path));
  const model = d.model({
    name: g.model,
    field: isObj(first.sample) && typeof first.sample.model === 'string' ? 'sample.model' : 'run.model',
    runKey: `${digest}/${g.runId}`,
    ...openaiModelFacts(g.model, 'OpenAI Evals API sample model'),
  });
  const ids = d.ids({
    digest,
    discriminator: `${g.runId}\u0000${g.model}`,
    defaultCollection: 'openai-evals-api',
  });

  // Per criterion: graded items, passes, the score sum; errored items apart.
  const stats = new Map<
    string,
    { type?: string; passed: number; failed: number; scoreSum: number; scored: number }
  >();
  const errored: Item[] = [];
  const itemCounts = { passed: 0, failed: 0 };
  for (const item of g.items) {
    if (errorOf(item.value) !== undefined) {
      errored.push(item);
      continue;
    }
    const results = (item.value.results as unknown[]).filter(isObj);
    let all = results.length > 0;
    for (const r of results) {
      const name = typeof r.name === 'string' && r.name !== '' ? r.name : 'grader';
      const s = stats.get(name) ?? { passed: 0, failed: 0, scoreSum: 0, scored: 0 };
      if (typeof r.type === 'string') s.type = r.type;
      if (r.passed === true) s.passed++;
      else (s.failed++, (all = false));
      if (finite(r.score)) ((s.scoreSum += r.score), s.scored++);
      stats.set(name, s);
    }
    if (all) itemCounts.passed++;
    else itemCounts.failed++;
  }
  const graders = [...stats.keys()].sort();
  const declared = declaredCounts(run, graders);
  const sourceData = (grader: string): Obj => ({
    dataset_name: evalName,
    source_type: 'other',
    additional_details: {
      ...(evalId ? { eval_id: evalId } : {}),
      testing_criterion: grader,
      ...(stats.get(grader)?.type ? { grader_type: stats.get(grader)!.type! } : {}),
    },
  });
  const timestamp = epochSeconds(run?.created_at) ?? epochSeconds(first.created_at);
  for (const grader of graders) {
    const s = stats.get(grader)!;
    const graded = s.passed + s.failed;
    const dc = declared.criteria.get(grader);
    const counts = {
      rows_passed: s.passed,
      rows_failed: s.failed,
      errored_items: errored.length,
      ...(dc ? { declared_passed: dc.passed, declared_failed: dc.failed } : {}),
    };
    if (dc && (dc.passed !== s.passed || dc.failed !== s.failed))
      notes.push(
        `${grader}: the run declares ${dc.passed} passed and ${dc.failed} failed, the file holds ${s.passed} and ${s.failed} (a partial export?)`,
      );
    const base = {
      evaluationName: grader,
      sourceData: sourceData(grader),
      ...(timestamp ? { evaluationTimestamp: timestamp } : {}),
    };
    // The pass rate over the graded items, the mean score over the scored ones.
    const measures = [
      { key: 'pass_rate', name: 'pass rate', field: 'passed', n: graded, sum: s.passed, details: counts },
      {
        key: 'mean_score',
        name: 'mean score',
        field: 'score',
        n: s.scored,
        sum: s.scoreSum,
        details: { ...counts, scored_items: s.scored },
      },
    ];
    for (const m of measures)
      if (m.n > 0)
        d.results.add({
          ...base,
          metric: m.key === 'pass_rate' ? 'pass_rate' : 'score',
          metricId: `openai_evals.${m.key}`,
          metricName: m.name,
          resultId: `${grader}/${m.key}`,
          field: `results[name=${grader}].${m.field}`,
          score: m.sum / m.n,
          numSamples: m.n,
          details: m.details,
        });
  }
  if (d.results.results.length === 0)
    throw new DataError(
      'convert.openai-evals-api',
      `${path}: run ${g.runId}: no graded item (${errored.length} errored of ${g.items.length}): nothing to convert`,
    );
  if (errored.length > 0)
    notes.push(
      `${errored.length} errored item(s) counted, not scored (no row): ${errored
        .slice(0, 5)
        .map((i) => text(i.value.id ?? i.at))
        .join(', ')}${errored.length > 5 ? ', …' : ''}`,
    );
  const di = declared.items;
  const fileTotal = g.items.length;
  if (di && (di.total !== fileTotal || di.errored !== errored.length || di.passed !== itemCounts.passed))
    notes.push(
      `the run declares ${di.total} item(s) (${di.passed} passed, ${di.failed} failed, ${di.errored} errored); the file holds ${fileTotal} (${itemCounts.passed} passed, ${itemCounts.failed} failed, ${errored.length} errored)`,
    );

  const sourceDetails: Obj = {
    run_id: g.runId,
    ...(evalId ? { eval_id: evalId } : {}),
    items: fileTotal,
    items_passed: itemCounts.passed,
    items_failed: itemCounts.failed,
    items_errored: errored.length,
  };
  if (runFile) sourceDetails.run_file = basename(runFile);
  if (run) {
    for (const k of [
      'status',
      'report_url',
      'result_counts',
      'per_testing_criteria_results',
      'per_model_usage',
      'metadata',
      'error',
    ])
      if (run[k] !== undefined && run[k] !== null) {
        sourceDetails[`run.${k}`] = run[k];
        report.details(`run.${k}`, `/source_metadata/additional_details/run.${k}`);
      }
    if (run.data_source !== undefined)
      report.notMapped('run.data_source', 'the data source configuration (its items are the output items)');
  } else
    notes.push(
      "no eval.run object (in the file, run.json or <run_id>.json beside it): the run's own counts are not checked",
    );
  report.mapped('results[].name', '/evaluation_results/*/evaluation_name');
  report.mapped('sample.input', '/input (raw: the last user message; formatted: the chat)');
  report.mapped('sample.output[].content', '/output/raw');
  report.mapped('sample.usage', '/token_usage');
  report.details('datasource_item', 'instance row metadata (item.<key>)');
  report.details(
    'sample.finish_reason, temperature, top_p, seed, max_completion_tokens',
    'instance row metadata',
  );

  const runStatus = run && typeof run.status === 'string' ? run.status : undefined;
  d.run({
    sourceRunId: g.runId,
    status: runStatus === undefined || runStatus === 'completed' ? 'complete' : 'partial',
    scoredSamples: fileTotal - errored.length,
  });
  const aggregate = d.aggregate({
    sourceName: 'OpenAI Evals API output items',
    sourceDetails,
    evalLibrary: { name: 'openai-evals-api', version: 'unknown' },
    ...(timestamp
      ? {
          evaluationTimestamp: {
            value: timestamp,
            field: run ? 'run.created_at' : 'output_items[0].created_at',
          },
          retrievedTimestamp: {
            value: timestamp,
            field: run ? 'run.created_at' : 'output_items[0].created_at',
          },
        }
      : {}),
    hasRows: true,
  });
  report.inferred('eval library version', '/eval_library/version', 'the API states no version');

  const makeRow = rowMaker(ids.evaluationId, model.id);
  const resultIds = new Set(d.results.results.map((r) => r.evaluation_result_id as string));
  async function* rows(): AsyncGenerator<Obj> {
    for (const item of g.items) {
      const v = item.value;
      if (errorOf(v) !== undefined) continue;
      const sample = isObj(v.sample) ? v.sample : {};
      const ds = isObj(v.datasource_item) ? v.datasource_item : {};
      const input = chatInput(sample.input);
      const refKey = REFERENCE_KEYS.find((k) => typeof ds[k] === 'string');
      const outputs = Array.isArray(sample.output)
        ? sample.output.filter(isObj).map((m) => text(m.content ?? ''))
        : [];
      const usage = usageOf(sample);
      const meta: Obj = {
        output_item_id: v.id,
        item_status: v.status,
        datasource_item_id: v.datasource_item_id,
      };
      for (const [k, x] of Object.entries(ds)) meta[`item.${k}`] = x;
      for (const k of ['finish_reason', 'temperature', 'top_p', 'seed', 'max_completion_tokens'])
        if (sample[k] !== undefined && sample[k] !== null) meta[`sample.${k}`] = sample[k];
      const baseId = v.datasource_item_id !== undefined ? String(v.datasource_item_id) : text(v.id);
      for (const r of (v.results as unknown[]).filter(isObj)) {
        const grader = typeof r.name === 'string' && r.name !== '' ? r.name : 'grader';
        const resultId = resultIds.has(`${grader}/mean_score`)
          ? `${grader}/mean_score`
          : `${grader}/pass_rate`;
        const extra: Obj = { grader_type: r.type };
        for (const [k, x] of Object.entries(r))
          if (!['name', 'type', 'passed', 'score'].includes(k) && x !== null && x !== undefined)
            extra[`grader.${k}`] = x;
        const row: RowInput = {
          evaluationName: grader,
          evaluationResultId: resultId,
          // Unique in the record (the writer numbers a repeated id), the same for the item in every run.
          sampleId: `${baseId}#${grader}`,
          input: {
            raw: input.raw,
            ...(input.formatted !== undefined ? { formatted: input.formatted } : {}),
            reference: refKey ? [ds[refKey] as string] : [],
          },
          output: { raw: outputs },
          evaluation: {
            score: finite(r.score) ? r.score : r.passed === true ? 1 : 0,
            is_correct: r.passed === true,
          },
          ...(usage ? { tokenUsage: usage } : {}),
          metadata: { ...meta, ...extra },
        };
        yield makeRow(row);
      }
    }
  }
  notes.push('instance rows: one per output item and testing criterion; errored items have none');
  return d.record({ aggregate, rows });
}

export const openaiEvalsApiSource: SourceConverter = {
  id: 'openai-evals-api',
  description:
    'OpenAI Evals API output items (JSON array, list page or JSONL of "eval.run.output_item" objects, optionally with the "eval.run")',
  detect,
  convert: convertItems,
};
