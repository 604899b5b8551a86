/**
 * AlpacaEval outputs as EEE 0.3.0.
 *
 * - `annotations.json` (a list of pairwise judgements: `instruction`, `output_1` of the reference model
 *   `generator_1`, `output_2` of the evaluated model `generator_2`, the `annotator`'s `preference` in [1, 2], 1.5 a
 *   tie) → one record per (model, annotator): the result `win_rate`, in percent as AlpacaEval states it, with one
 *   instance row per instruction (its `preference − 1` as the score, the raw preference in the metadata; paired
 *   across models by the instruction and the reference output). AlpacaEval's rule: a preference of 0 is an old
 *   encoding of a tie (1.5); a preference that is null, NaN or outside [1, 2] is dropped; the win rate is the mean
 *   of `preference − 1` × 100, its standard error the standard error of that mean × 100. When a `leaderboard.csv`
 *   lies beside the annotations (AlpacaEval writes both), its row for the model gives the headlines (win rate,
 *   length-controlled win rate) and the sample count the rows are reconciled against.
 * - `leaderboard.csv` (columns vary by version; an unnamed index column or `name` names the model) → one record per
 *   row of headlines with their standard errors and n; the evaluators' leaderboard (annotator configurations scored
 *   against human preferences) likewise, an annotator configuration as the "model".
 * - `model_outputs.json` is a model's answers, not an evaluation: the annotations of it below its folder are what
 *   converts; alone it is refused, saying so.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { DataError } from '../../errors.js';
import { decodeCsvBytes, parseCsv } from '../../io/csv-reader.js';
import { isJsonObject } from '../../io/json-value.js';
import { isFileSync } from '../../io/files.js';
import type { DeclaredFacts } from '../../checks/reconciliation.js';
import { RecordDriver } from '../driver.js';
import { readBytes, readJsonSource } from '../read.js';
import { contentDigest, detailString, rowMaker } from '../record.js';
import type { ConvertedRecord, ConvertOptions, Probe, SourceConverter } from '../types.js';

type Obj = Record<string, unknown>;

const EVALUATION = 'alpaca_eval';
const SOURCE_DATA: Obj = {
  dataset_name: 'alpaca_eval',
  source_type: 'hf_dataset',
  hf_repo: 'tatsu-lab/alpaca_eval',
  hf_split: 'eval',
};

/** The first column that names the model: pandas' unnamed index (as written, or read back and written again), or a name. */
const NAME_COLUMNS = new Set(['', 'Unnamed: 0', 'name', 'model']);

export const alpacaEvalSource: SourceConverter = {
  id: 'alpaca-eval',
  description:
    'AlpacaEval annotations.json (pairwise preferences) or *leaderboard.csv; model_outputs.json alone is refused (outputs, not an evaluation)',
  detect(probe: Probe): boolean {
    if (probe.isDirectory || probe.head === undefined) return false;
    const name = basename(probe.path);
    if (name.endsWith('.csv')) {
      const header = probe.head.split(/\r?\n/, 1)[0].replace(/^\uFEFF/, '');
      const cols = header.split(',');
      if (!NAME_COLUMNS.has(cols[0])) return false;
      if (cols.includes('Human agreement')) return name.endsWith('leaderboard.csv');
      // A leaderboard by any file name: a win rate beside another of AlpacaEval's columns.
      return (
        cols.includes('win_rate') &&
        (name.endsWith('leaderboard.csv') ||
          ['standard_error', 'n_total', 'length_controlled_winrate', 'avg_length', 'n_wins'].some((c) =>
            cols.includes(c),
          ))
      );
    }
    if (!name.endsWith('.json') || !/^\s*\[\s*\{/.test(probe.head)) return false;
    const h = probe.head;
    if (/"output_1"\s*:/.test(h) && /"instruction"\s*:/.test(h) && /"generator_[12]"\s*:/.test(h))
      return true;
    return (
      /"instruction"\s*:/.test(h) &&
      /"output"\s*:/.test(h) &&
      /"generator"\s*:/.test(h) &&
      !/"output_1"\s*:/.test(h)
    );
  },
  convert(path: string, options: ConvertOptions): AsyncIterable<ConvertedRecord> {
    return (async function* () {
      if (path.endsWith('.csv')) {
        yield* convertLeaderboard(path, options);
        return;
      }
      const { value, digest } = await readJsonSource(path, { python: true });
      if (!Array.isArray(value) || value.length === 0 || !value.every(isJsonObject))
        throw new DataError('convert.alpaca-eval.shape', `${path}: expected a non-empty list of objects`);
      if (value.some((a) => 'output_1' in a || 'preference' in a)) {
        yield* convertAnnotations(path, value, digest, options);
        return;
      }
      yield* convertOutputs(path, value, options);
    })();
  },
};

// ---------------------------------------------------------------------------------------------------------------
// Preferences, as AlpacaEval reads them

/** A preference as AlpacaEval scores it: 0 (an old tie) as 1.5; undefined when dropped (null, NaN, outside [1, 2]). */
export function alpacaPreference(p: unknown): number | undefined {
  if (typeof p !== 'number' || !Number.isFinite(p)) return undefined;
  const v = p === 0 ? 1.5 : p;
  return v >= 1 && v <= 2 ? v : undefined;
}

/** AlpacaEval's head-to-head figures of a list of preferences (win rate and standard error in percent). */
export function winRate(preferences: readonly unknown[]): {
  winRate: number;
  standardError?: number;
  nTotal: number;
  nWins: number;
  nWinsBase: number;
  nDraws: number;
  dropped: number;
} {
  let sum = 0;
  let n = 0;
  let nWins = 0;
  let nWinsBase = 0;
  let nDraws = 0;
  const values: number[] = [];
  for (const raw of preferences) {
    if (raw === 0 || raw === 1.5) nDraws++;
    const p = alpacaPreference(raw);
    if (p === undefined) continue;
    const x = p - 1;
    values.push(x);
    sum += x;
    n++;
    if (x > 0.5) nWins++;
    else if (x < 0.5) nWinsBase++;
  }
  const mean = n === 0 ? NaN : sum / n;
  let standardError: number | undefined;
  if (n > 1) {
    let ss = 0;
    for (const x of values) ss += (x - mean) ** 2;
    standardError = Math.sqrt(ss / (n - 1) / n) * 100;
  }
  return {
    winRate: mean * 100,
    standardError,
    nTotal: n,
    nWins,
    nWinsBase,
    nDraws,
    dropped: preferences.length - n,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Leaderboards

interface LeaderboardRow {
  model: string;
  displayName?: string;
  line: number;
  values: Record<string, string>;
}

interface Leaderboard {
  columns: string[];
  rows: LeaderboardRow[];
  evaluators: boolean;
}

function readLeaderboard(path: string, bytes: Uint8Array): Leaderboard {
  const records = parseCsv(decodeCsvBytes(bytes, path), path).filter(
    (r) => !(r.fields.length === 1 && r.fields[0] === ''),
  );
  if (records.length === 0) throw new DataError('convert.alpaca-eval.empty', `${path}: an empty leaderboard`);
  const columns = records[0].fields;
  const rows: LeaderboardRow[] = [];
  for (const r of records.slice(1)) {
    if (r.fields.length !== columns.length)
      throw new DataError(
        'convert.alpaca-eval.csv',
        `${path}:${r.line}: ${r.fields.length} fields, the header has ${columns.length}`,
      );
    const values: Record<string, string> = {};
    columns.forEach((c, i) => (values[c] = r.fields[i]));
    let model = r.fields[0];
    let displayName: string | undefined;
    if (columns[0] === 'name') {
      // The docs' leaderboards name a model for display; its outputs' link names it as AlpacaEval does.
      const m = /\/results\/([^/]+)\/model_outputs\.json$/.exec(values.samples ?? '');
      displayName = values.name;
      // Without the link only the display name is there: "/" in it ("GPT-4 (06/13)") is no developer's prefix.
      model = m ? decodeURIComponent(m[1]) : (values.name ?? '').replace(/\//g, '-');
    }
    if (model === undefined || model === '')
      throw new DataError('convert.alpaca-eval.csv', `${path}:${r.line}: a row without a model name`);
    rows.push({ model, displayName, line: r.line, values });
  }
  return { columns, rows, evaluators: columns.includes('Human agreement') };
}

/** The annotator of a leaderboard: `<annotator>_leaderboard.csv`, else the folder `leaderboard.csv` lies in. */
function leaderboardAnnotator(path: string): { annotator: string; from: string } {
  const name = basename(path);
  if (name !== 'leaderboard.csv' && name.endsWith('_leaderboard.csv'))
    return { annotator: name.slice(0, -'_leaderboard.csv'.length), from: 'the file name' };
  return { annotator: basename(dirname(path)), from: 'the folder name' };
}

const num = (s: string | undefined): number | undefined => {
  if (s === undefined || s.trim() === '') return undefined;
  const v = Number(s);
  return Number.isNaN(v) && !/^\s*nan\s*$/i.test(s) ? undefined : v;
};
const count = (s: string | undefined): number | undefined => {
  const v = num(s);
  return v !== undefined && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
};

/** The direction of the evaluators leaderboard's measures (the others describe a judge's leanings: details). */
const EVALUATOR_LOWER_IS_BETTER: Record<string, boolean> = {
  'Human agreement': false,
  'Spearman corr.': false,
  'Pearson corr.': false,
  'Price [$/1000 examples]': true,
  'Time [seconds/1000 examples]': true,
  Bias: true,
  Variance: true,
};

/** Columns that describe a row (counts, lengths, links, a judge's leanings): kept in each result's details. */
const KEPT_COLUMNS = [
  'n_wins',
  'n_wins_base',
  'n_draws',
  'n_total',
  'avg_length',
  'output_length',
  'mode',
  'filter',
  'link',
  'samples',
  '# parsed',
  'Proba. prefer longer',
  'Proba. prefer lists',
  'Proba. prefer 1',
];

/** Columns that are not results: the name columns, the kept ones, the standard errors (beside their result). */
const NOT_RESULTS = new Set([...NAME_COLUMNS, ...KEPT_COLUMNS, 'standard_error', 'lc_standard_error']);

async function* convertLeaderboard(path: string, options: ConvertOptions): AsyncGenerator<ConvertedRecord> {
  const bytes = await readBytes(path);
  const board = readLeaderboard(path, bytes);
  const digest = contentDigest(bytes);
  const { annotator, from } = leaderboardAnnotator(path);
  // The annotations beside the leaderboard (AlpacaEval writes both into one folder) make the record of their model.
  const beside = join(dirname(path), 'annotations.json');
  const annotated = new Set<string>();
  if (isFileSync(beside)) {
    for await (const record of convertAnnotationsFile(beside, options)) {
      annotated.add(generatorOf(record));
      yield record;
    }
  }
  for (const row of board.rows) {
    if (annotated.has(row.model)) continue;
    yield leaderboardRecord(path, digest, board, row, annotator, from, options);
  }
}

function leaderboardRecord(
  path: string,
  digest: string,
  board: Leaderboard,
  row: LeaderboardRow,
  annotator: string,
  annotatorFrom: string,
  options: ConvertOptions,
): ConvertedRecord {
  const d = new RecordDriver('alpaca-eval', path, options);
  const { report } = d;
  const modelField =
    board.columns[0] !== 'name'
      ? `line ${row.line}, first column`
      : row.model === (row.values.name ?? '').replace(/\//g, '-')
        ? `line ${row.line}, name (a display name: no outputs link names the model)`
        : `line ${row.line}, samples`;
  d.model({
    name: row.model,
    field: modelField,
    runKey: `${digest}:${row.model}`,
    details: row.displayName !== undefined ? { display_name: row.displayName } : undefined,
    detailsField: 'name',
  });
  // A leaderboard may list a model twice (in two modes): each row is a record.
  d.ids({ digest, discriminator: `${row.model}\u0000${row.line}`, defaultCollection: 'alpaca-eval' });
  const v = row.values;
  const details: Obj = {};
  for (const c of KEPT_COLUMNS)
    if (v[c] !== undefined && v[c] !== '') {
      details[c] = v[c];
      report.details(`${c} (line ${row.line})`, '/evaluation_results/*/score_details/details');
    }
  const nTotal = count(v.n_total);
  const evaluationName = board.evaluators ? 'alpaca_eval_human_agreement' : EVALUATION;
  const params = board.evaluators ? undefined : { annotator };
  for (const column of board.columns.slice(1)) {
    if (NOT_RESULTS.has(column)) continue;
    const score = num(v[column]);
    const field = `${column} (line ${row.line})`;
    if (score === undefined) {
      if (v[column] !== '') report.notMapped(field, `not a number (${JSON.stringify(v[column])})`);
      continue;
    }
    const seColumn =
      column === 'win_rate'
        ? 'standard_error'
        : column === 'length_controlled_winrate'
          ? 'lc_standard_error'
          : '';
    const se = num(v[seColumn]);
    const declared: DeclaredFacts = {
      headlineWhy:
        column === 'length_controlled_winrate'
          ? 'the length-controlled win rate comes from a regression AlpacaEval fits, not a mean of per-instruction values'
          : 'a leaderboard states headlines only; its annotations are not beside it',
    };
    const resultId = `${evaluationName}/${column}`;
    d.results.add({
      evaluationName,
      metric: column,
      resultId,
      field,
      score,
      lowerIsBetter:
        board.evaluators && Object.hasOwn(EVALUATOR_LOWER_IS_BETTER, column)
          ? {
              value: EVALUATOR_LOWER_IS_BETTER[column],
              field: `${column} (AlpacaEval's evaluators leaderboard)`,
            }
          : undefined,
      sourceData: SOURCE_DATA,
      standardError:
        se !== undefined && Number.isFinite(se)
          ? { value: se, method: 'AlpacaEval standard error' }
          : undefined,
      numSamples: column.includes('win') ? nTotal : undefined,
      details,
      metricParameters: params,
      declared,
    });
  }
  if (d.results.results.length === 0 && Object.keys(d.results.leftOut).length === 0)
    throw new DataError(
      'convert.alpaca-eval.empty',
      `${path}:${row.line}: no numeric headline for ${row.model}`,
    );
  report.inferred(
    'annotator',
    '/evaluation_results/*/metric_config/metric_parameters/annotator',
    `from ${annotatorFrom}`,
  );
  const aggregate = d.aggregate({
    sourceName: board.evaluators ? 'AlpacaEval evaluators leaderboard' : 'AlpacaEval leaderboard',
    sourceDetails: { leaderboard_file: basename(path), annotator, line: row.line },
    evalLibrary: { name: 'alpaca_eval', version: 'unknown' },
    hasRows: false,
  });
  d.notes.push(
    board.evaluators
      ? 'an AlpacaEval evaluators leaderboard: the "model" is an annotator configuration, scored against human preferences'
      : 'a leaderboard row: headlines only, no instance rows',
  );
  return d.record({ aggregate });
}

// ---------------------------------------------------------------------------------------------------------------
// Annotations

async function* convertAnnotationsFile(
  path: string,
  options: ConvertOptions,
): AsyncGenerator<ConvertedRecord> {
  const { value, digest } = await readJsonSource(path, { python: true });
  if (!Array.isArray(value) || !value.every(isJsonObject))
    throw new DataError('convert.alpaca-eval.shape', `${path}: expected a list of objects`);
  yield* convertAnnotations(path, value, digest, options);
}

/** The evaluated model of an annotations record, as the annotations name it. */
const generatorOf = (record: ConvertedRecord): string =>
  String(
    ((record.aggregate.source_metadata as Obj).additional_details as Obj | undefined)?.generator_2 ?? '',
  );

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

async function* convertAnnotations(
  path: string,
  annotations: Obj[],
  digest: string,
  options: ConvertOptions,
): AsyncGenerator<ConvertedRecord> {
  // One record per (model, annotator), in the order the file first names them.
  const groups = new Map<string, { model: string; annotator: string; items: { a: Obj; index: number }[] }>();
  annotations.forEach((a, index) => {
    if (typeof a.instruction !== 'string')
      throw new DataError('convert.alpaca-eval.shape', `${path}: /${index}/instruction is not a string`);
    const model = str(a.generator_2) ?? 'unknown';
    const annotator = str(a.annotator) ?? 'unknown';
    const key = `${model}\u0000${annotator}`;
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = { model, annotator, items: [] }));
    g.items.push({ a, index });
  });
  const board = leaderboardBeside(path);
  for (const g of groups.values()) yield annotationsRecord(path, digest, g, board, options);
}

function leaderboardBeside(path: string): { path: string; board: Leaderboard } | undefined {
  const candidate = join(dirname(path), 'leaderboard.csv');
  if (!isFileSync(candidate)) return undefined;
  try {
    const bytes = readFileSync(candidate);
    return { path: candidate, board: readLeaderboard(candidate, bytes) };
  } catch {
    return undefined;
  }
}

const shortHash = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);

function annotationsRecord(
  path: string,
  digest: string,
  g: { model: string; annotator: string; items: { a: Obj; index: number }[] },
  beside: { path: string; board: Leaderboard } | undefined,
  options: ConvertOptions,
): ConvertedRecord {
  const d = new RecordDriver('alpaca-eval', path, options);
  const { report, notes } = d;
  const first = g.items[0].index;
  const model = d.model({
    name: g.model,
    field: `/${first}/generator_2`,
    unnamed: g.model === 'unknown',
    runKey: digest,
  });
  const ids = d.ids({
    digest,
    discriminator: `${g.model}\u0000${g.annotator}`,
    defaultCollection: 'alpaca-eval',
  });
  const references = [...new Set(g.items.map(({ a }) => str(a.generator_1) ?? 'unknown'))];
  const datasets = [...new Set(g.items.map(({ a }) => str(a.dataset)).filter((x) => x !== undefined))];
  const figures = winRate(g.items.map(({ a }) => a.preference));
  const row = beside?.board.rows.find((r) => r.model === g.model);
  const params = { annotator: g.annotator };
  const details: Obj = {
    reference_model: references.join(','),
    n_wins: figures.nWins,
    n_wins_base: figures.nWinsBase,
    n_draws: figures.nDraws,
    n_total: figures.nTotal,
  };
  if (figures.dropped > 0) {
    details.n_dropped = figures.dropped;
    notes.push(
      `${figures.dropped} annotation(s) without a preference AlpacaEval counts (null, NaN or outside [1, 2]): dropped from the win rate, as AlpacaEval drops them, and without an instance row`,
    );
  }
  if (references.length === 1 && references[0] === g.model)
    notes.push(
      `the model is judged against itself (generator_1 = generator_2 = ${g.model}): AlpacaEval's reference model, a win rate of 50 by construction`,
    );
  report.mapped(`/*/generator_1`, '/evaluation_results/*/score_details/details/reference_model');
  report.mapped(`/*/annotator`, '/evaluation_results/*/metric_config/metric_parameters/annotator');
  report.mapped(`/*/preference`, 'instance rows: evaluation.score (preference − 1)');

  // The headline: the leaderboard's, when one beside the annotations names the model; else AlpacaEval's rule.
  const lbWin = row ? num(row.values.win_rate) : undefined;
  const lbSe = row ? num(row.values.standard_error) : undefined;
  const lbN = row ? count(row.values.n_total) : undefined;
  const declared: DeclaredFacts = row
    ? {
        ...(lbN !== undefined ? { n: lbN, nFrom: `${basename(beside!.path)} line ${row.line} n_total` } : {}),
        headline: 'mean',
        scale: 100,
      }
    : {
        headlineWhy:
          'the win rate is computed from these annotations (AlpacaEval rule); no leaderboard.csv beside them to check it against',
      };
  const score = lbWin ?? figures.winRate;
  const se = lbWin !== undefined ? lbSe : figures.standardError;
  if (lbWin !== undefined)
    report.mapped(
      `${basename(beside!.path)} line ${row!.line} win_rate`,
      '/evaluation_results/0/score_details/score',
    );
  else
    report.inferred(
      '/*/preference',
      '/evaluation_results/0/score_details/score',
      'the mean of preference − 1 × 100 (ties 0.5; null, NaN and out-of-range preferences dropped), as AlpacaEval computes win_rate',
    );
  const resultId = `${EVALUATION}/win_rate`;
  d.results.add({
    evaluationName: EVALUATION,
    metric: 'win_rate',
    resultId,
    field: lbWin !== undefined ? 'leaderboard.csv win_rate' : '/*/preference',
    score,
    sourceData:
      datasets.length > 0
        ? { ...SOURCE_DATA, additional_details: { datasets: datasets.join(',') } }
        : SOURCE_DATA,
    standardError:
      se !== undefined && Number.isFinite(se)
        ? { value: se, method: 'standard error of the mean preference × 100' }
        : undefined,
    numSamples: lbN ?? figures.nTotal,
    details,
    metricParameters: params,
    declared,
  });
  const lc = row ? num(row.values.length_controlled_winrate) : undefined;
  if (lc !== undefined) {
    const lcSe = num(row!.values.lc_standard_error);
    d.results.add({
      evaluationName: EVALUATION,
      metric: 'length_controlled_winrate',
      resultId: `${EVALUATION}/length_controlled_winrate`,
      field: `${basename(beside!.path)} line ${row!.line} length_controlled_winrate`,
      score: lc,
      sourceData: SOURCE_DATA,
      standardError:
        lcSe !== undefined && Number.isFinite(lcSe)
          ? { value: lcSe, method: 'AlpacaEval standard error' }
          : undefined,
      numSamples: lbN,
      details: { reference_model: references.join(',') },
      metricParameters: params,
      declared: {
        headlineWhy:
          'the length-controlled win rate comes from a regression AlpacaEval fits, not a mean of per-instruction values',
      },
    });
  }
  if (!Number.isFinite(score) && d.results.results.length === 0)
    throw new DataError(
      'convert.alpaca-eval.empty',
      `${path}: no annotation of ${g.model} by ${g.annotator} has a preference AlpacaEval counts`,
    );

  const aggregate = d.aggregate({
    sourceName: 'AlpacaEval annotations',
    sourceDetails: {
      annotations_file: basename(path),
      generator_2: g.model,
      annotator: g.annotator,
      ...(beside ? { leaderboard_file: basename(beside.path) } : {}),
    },
    evalLibrary: { name: 'alpaca_eval', version: 'unknown' },
    hasRows: figures.nTotal > 0,
  });

  const makeRow = rowMaker(ids.evaluationId, model.id);
  const rows =
    figures.nTotal === 0
      ? undefined
      : async function* (): AsyncGenerator<Obj> {
          const seen = new Map<string, number>();
          for (const { a, index } of g.items) {
            const p = alpacaPreference(a.preference);
            if (p === undefined) continue;
            const instruction = a.instruction as string;
            const base = shortHash(instruction);
            const k = seen.get(base) ?? 0;
            seen.set(base, k + 1);
            const metadata: Obj = { index, preference: a.preference };
            for (const key of Object.keys(a))
              if (
                !['instruction', 'output_1', 'output_2', 'generator_2', 'annotator', 'preference'].includes(
                  key,
                ) &&
                a[key] !== null &&
                a[key] !== undefined
              )
                metadata[key] = a[key];
            yield makeRow({
              evaluationName: EVALUATION,
              evaluationResultId: resultId,
              sampleId: k === 0 ? base : `${base}#${k}`,
              input: { raw: instruction, reference: typeof a.output_1 === 'string' ? [a.output_1] : [] },
              output: { raw: typeof a.output_2 === 'string' ? [a.output_2] : [detailString(a.output_2)] },
              evaluation: { score: p - 1, is_correct: p - 1 > 0.5 },
              metadata,
            });
          }
        };
  notes.push(
    'instance rows: one per judged instruction, the score its preference − 1 (1 the model preferred, 0 the reference, 0.5 a tie), the reference output as input.reference',
  );
  return d.record({ aggregate, rows });
}

// ---------------------------------------------------------------------------------------------------------------
// Model outputs

/** The annotations.json files in the folders below `dir` (two levels: `<annotator>/` and `<annotator>/<sub>/`). */
function annotationsBelow(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, depth: number): void => {
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      if (n === 'annotations.json' && depth > 0 && isFileSync(p)) out.push(p);
      else if (depth < 3 && !n.startsWith('.')) {
        try {
          if (statSync(p).isDirectory()) walk(p, depth + 1);
        } catch {
          // unreadable: not ours to report
        }
      }
    }
  };
  walk(dir, 0);
  return out;
}

async function* convertOutputs(
  path: string,
  outputs: Obj[],
  options: ConvertOptions,
): AsyncGenerator<ConvertedRecord> {
  const generators = new Set(outputs.map((o) => str(o.generator)).filter((x) => x !== undefined));
  let found = 0;
  for (const file of annotationsBelow(dirname(path))) {
    for await (const record of convertAnnotationsFile(file, options)) {
      if (generators.size > 0 && !generators.has(generatorOf(record))) continue;
      found++;
      yield { ...record, sourcePath: path };
    }
  }
  if (found === 0)
    throw new DataError(
      'convert.alpaca-eval.outputs-only',
      `${path}: AlpacaEval model outputs, not an evaluation (${outputs.length} answers of ${[...generators].join(', ') || 'a model'} with no judgement); convert the annotations.json or leaderboard.csv that alpaca_eval writes when it judges them`,
    );
}
