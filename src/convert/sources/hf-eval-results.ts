/**
 * A model repository's Hugging Face Hub community evals (`<repo>/.eval_results/*.yaml`, each a YAML list of entries
 * `{dataset: {id, task_id, revision?}, value, date?, source?: {url, name?, user?, org?}, notes?, verifyToken?}`) as
 * EEE 0.3.0 records of headlines: what `evalkit export hf-evals` writes, read back. One record per file and source
 * (the entries of a file that name the same source); each entry a result. The entries are claims published about
 * the model, not a run: `source_type` "documentation", the evaluator a third party unless told otherwise. The dataset
 * is the benchmark (`evaluation_name`; the name evalkit's benchmark table gives the dataset and task when it knows
 * them, so an exported entry comes back under the benchmark it came from), the task its subset. An entry names no
 * metric: the table's metric when it knows the benchmark and the value is a proportion, else `value` as published
 * (no bounds or unit invented). `verifyToken` says the Hub verified the entry; the token itself is not copied.
 */
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isMap, isSeq, parseDocument } from 'yaml';
import { DataError } from '../../errors.js';
import { isJsonObject } from '../../io/json-value.js';
import { readBytes } from '../read.js';
import { RecordDriver } from '../driver.js';
import { contentDigest, epochSeconds } from '../record.js';
import { HF_BENCHMARKS } from '../hf-benchmarks.js';
import type { ConvertedRecord, ConvertOptions, Probe, SourceConverter } from '../types.js';

type Obj = Record<string, unknown>;

const EVAL_RESULTS = '.eval_results';

/** True for a path inside a `.eval_results` folder. */
function inEvalResults(path: string): boolean {
  return basename(dirname(path)) === EVAL_RESULTS;
}

export const hfEvalResultsSource: SourceConverter = {
  id: 'hf-eval-results',
  description:
    "Hugging Face Hub community evals: a model repository's .eval_results/*.yaml (dataset, value, source)",
  detect(probe: Probe): boolean {
    if (probe.isDirectory) {
      if (basename(probe.path) === EVAL_RESULTS) return (probe.entries ?? []).some((e) => /\.ya?ml$/.test(e));
      return false;
    }
    if (!/\.ya?ml$/.test(probe.path) || probe.head === undefined) return false;
    return (
      inEvalResults(probe.path) && /^\s*-?\s*dataset\s*:/m.test(probe.head) && /\bvalue\s*:/.test(probe.head)
    );
  },
  convert(path: string, options: ConvertOptions): AsyncIterable<ConvertedRecord> {
    return (async function* () {
      yield* convertFile(path, options);
    })();
  },
};

interface Entry {
  index: number;
  datasetId: string;
  taskId: string;
  revision?: string;
  value: number;
  date?: string;
  source?: Obj;
  notes?: string;
  verified: boolean;
}

/** The entries of a file; a YAML error or an entry without dataset.id / a numeric value is a DataError at its line. */
function readEntries(path: string, text: string): Entry[] {
  const doc = parseDocument(text, { prettyErrors: true });
  const error = doc.errors[0];
  if (error) {
    const at = error.linePos?.[0];
    throw new DataError(
      'convert.hf-eval-results.yaml',
      `${path}${at ? `:${at.line}:${at.col}` : ''}: not YAML: ${error.message.split('\n')[0]}`,
    );
  }
  if (!isSeq(doc.contents))
    throw new DataError(
      'convert.hf-eval-results.shape',
      `${path}: an .eval_results file is a YAML list of entries (dataset, value, ...)`,
    );
  const lineOf = (node: unknown): string => {
    const range = (node as { range?: [number, number, number] } | null)?.range;
    if (!range) return '';
    return `:${text.slice(0, range[0]).split('\n').length}`;
  };
  const entries: Entry[] = [];
  doc.contents.items.forEach((node, index) => {
    const item = isMap(node) ? (node.toJSON() as Obj) : undefined;
    const where = `${path}${lineOf(node)}`;
    const dataset = item && isJsonObject(item.dataset) ? item.dataset : undefined;
    if (!item || !dataset || typeof dataset.id !== 'string' || dataset.id === '')
      throw new DataError(
        'convert.hf-eval-results.entry',
        `${where}: entry ${index} has no dataset.id (an entry is {dataset: {id, task_id}, value, ...})`,
      );
    const value = typeof item.value === 'string' ? Number(item.value) : item.value;
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw new DataError(
        'convert.hf-eval-results.entry',
        `${where}: entry ${index} (${dataset.id}) has no numeric value (${JSON.stringify(item.value ?? null)})`,
      );
    const date =
      item.date instanceof Date
        ? item.date.toISOString().slice(0, 10)
        : typeof item.date === 'string'
          ? item.date
          : undefined;
    entries.push({
      index,
      datasetId: dataset.id,
      taskId: typeof dataset.task_id === 'string' && dataset.task_id !== '' ? dataset.task_id : dataset.id,
      revision: typeof dataset.revision === 'string' ? dataset.revision : undefined,
      value,
      date,
      source: isJsonObject(item.source) ? item.source : undefined,
      notes: typeof item.notes === 'string' ? item.notes : undefined,
      verified: typeof item.verifyToken === 'string' && item.verifyToken !== '',
    });
  });
  return entries;
}

/** The files of a path: the file itself, or a `.eval_results` folder's YAML files in name order. */
async function filesOf(path: string): Promise<string[]> {
  if (!(await stat(path)).isDirectory()) return [path];
  return (await readdir(path))
    .filter((n) => /\.ya?ml$/.test(n))
    .sort()
    .map((n) => join(path, n));
}

/** The benchmark table's name and first metric for a dataset and task, when the table knows them. */
function tableEntry(datasetId: string, taskId: string): { name: string; metric: string } | undefined {
  const row = HF_BENCHMARKS.find(
    ([, m]) => m.dataset_id === datasetId && m.task_id === taskId && m.metrics.length > 0,
  );
  return row ? { name: row[0][0]!, metric: row[1].metrics[0]! } : undefined;
}

/** The model a repository folder names: `models--org--name` (the Hub cache), `org__name[__…]`, else `<parent>/<folder>`. */
function repositoryModel(repo: string): string {
  const folder = basename(repo);
  const cache = /^models--([^-].*?)--(.+)$/.exec(folder);
  if (cache) return `${cache[1]}/${cache[2]}`;
  const parts = folder.split('__');
  if (parts.length >= 2 && parts[0] !== '' && parts[1] !== '') return `${parts[0]}/${parts[1]}`;
  return `${basename(dirname(repo))}/${folder}`;
}

const sourceKey = (s: Obj | undefined): string =>
  JSON.stringify(s ? [s.url ?? null, s.name ?? null, s.user ?? null, s.org ?? null] : null);

async function* convertFile(path: string, options: ConvertOptions): AsyncGenerator<ConvertedRecord> {
  for (const file of await filesOf(path)) {
    const bytes = await readBytes(file);
    const digest = contentDigest(bytes);
    const entries = readEntries(file, bytes.toString('utf8'));
    const groups = new Map<string, Entry[]>();
    for (const e of entries) groups.set(sourceKey(e.source), [...(groups.get(sourceKey(e.source)) ?? []), e]);
    for (const [key, group] of groups) yield recordOf(file, digest, key, group, groups.size > 1, options);
  }
}

function recordOf(
  file: string,
  digest: string,
  key: string,
  entries: Entry[],
  several: boolean,
  options: ConvertOptions,
): ConvertedRecord {
  const d = new RecordDriver('hf-eval-results', file, options);
  const { report, notes } = d;
  // The model repository is the folder holding .eval_results; export hf-evals lays it out as <org>/<model>.
  const name = repositoryModel(dirname(dirname(file)));
  d.model({ name, field: 'the model repository folder (<org>/<model>/.eval_results)', runKey: digest });
  report.inferred(
    'model repository',
    '/model_info/id',
    'an .eval_results entry does not name its model: from the repository folder (<org>/<model>, models--org--name or org__name; use --model-id)',
  );
  d.ids({ digest, discriminator: several ? key : undefined, defaultCollection: 'hf-eval-results' });

  const source = entries[0]!.source;
  for (const e of entries) {
    const at = `[${e.index}]`;
    const known = tableEntry(e.datasetId, e.taskId);
    const proportion = e.value >= 0 && e.value <= 1;
    const metric = known && proportion ? known.metric : 'value';
    const evaluationName = known ? known.name : e.datasetId;
    report.mapped(`${at}.dataset.id`, '/evaluation_results/*/source_data/hf_repo');
    report.mapped(`${at}.dataset.task_id`, '/evaluation_results/*/source_data/additional_details/subset');
    if (known)
      report.inferred(
        `${at}.dataset`,
        '/evaluation_results/*/evaluation_name',
        `the benchmark table's name for ${e.datasetId} / ${e.taskId}`,
      );
    else report.mapped(`${at}.dataset.id`, '/evaluation_results/*/evaluation_name');
    report.inferred(
      `${at}.value`,
      '/evaluation_results/*/metric_config/metric_id',
      known && proportion
        ? `an entry names no metric: the benchmark table's metric for ${e.datasetId} ("${known.metric}")`
        : 'an entry names no metric: "value", as published (no bounds or unit invented)',
    );
    const sourceDetails: Obj = { subset: e.taskId };
    if (e.revision !== undefined) {
      sourceDetails.revision = e.revision;
      report.mapped(
        `${at}.dataset.revision`,
        '/evaluation_results/*/source_data/additional_details/revision',
      );
    }
    const details: Obj = { hub_verified: e.verified ? 'true' : 'false' };
    report.mapped(`${at}.verifyToken`, '/evaluation_results/*/score_details/details/hub_verified');
    if (e.notes !== undefined) {
      details.notes = e.notes;
      report.mapped(`${at}.notes`, '/evaluation_results/*/score_details/details/notes');
    }
    if (e.date !== undefined) report.mapped(`${at}.date`, '/evaluation_results/*/evaluation_timestamp');
    d.results.add({
      evaluationName,
      metric,
      metricName: metric === 'value' ? 'value (as published)' : undefined,
      resultId: `${e.datasetId}/${e.taskId}`,
      field: `${at}.value`,
      score: e.value,
      description: `${e.datasetId} (${e.taskId}) as published on the model's Hub page`,
      sourceData: {
        dataset_name: e.datasetId,
        source_type: 'hf_dataset',
        hf_repo: e.datasetId,
        additional_details: sourceDetails,
      },
      details,
      evaluationTimestamp: e.date,
    });
  }
  if (entries.some((e) => e.verified))
    notes.push('verifyToken present on some entries: the Hub verified them (the token is not copied)');

  const sourceMeta: Obj = { file: basename(file) };
  if (source) {
    for (const k of ['name', 'user', 'org'])
      if (typeof source[k] === 'string') {
        sourceMeta[`source.${k}`] = source[k];
        report.details(`source.${k}`, `/source_metadata/additional_details/source.${k}`);
      }
  }
  const orgName =
    source && typeof source.org === 'string'
      ? { name: source.org, field: 'source.org' }
      : source && typeof source.user === 'string'
        ? { name: source.user, field: 'source.user' }
        : source && typeof source.name === 'string'
          ? { name: source.name, field: 'source.name' }
          : undefined;
  const url = source && typeof source.url === 'string' ? source.url : undefined;
  if (url !== undefined) report.mapped('source.url', '/source_metadata/source_organization_url');
  const dates = entries
    .map((e) => (e.date ? epochSeconds(Date.parse(e.date) / 1000) : undefined))
    .filter((x): x is string => x !== undefined)
    .sort((a, b) => Number(a) - Number(b));
  const latest = dates[dates.length - 1];
  const aggregate = d.aggregate({
    sourceName: 'Hugging Face Hub community evals (.eval_results)',
    organization: orgName ? { ...orgName, ...(url ? { url } : {}) } : undefined,
    evaluatorRelationship: {
      value: 'third_party',
      field: '.eval_results (published claims about the model)',
    },
    sourceDetails: sourceMeta,
    evalLibrary: { name: 'unknown', version: 'unknown' },
    retrievedTimestamp: latest ? { value: latest, field: 'date' } : undefined,
    evaluationTimestamp: latest ? { value: latest, field: 'date' } : undefined,
    hasRows: false,
  });
  (aggregate.source_metadata as Obj).source_type = 'documentation';
  report.inferred(
    '.eval_results',
    '/source_metadata/source_type',
    '"documentation": the entries are published claims, not a run',
  );
  return d.record({ aggregate });
}
