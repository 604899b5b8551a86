/**
 * Reconciliation: every result a converter writes is checked against what its source declares, and the outcome is
 * kept in the record (`score_details.details.evalkit_reconciliation` and `…_note`, strings as EEE 0.3.0 wants).
 *
 * - counts: the distinct samples behind the result (epochs reduced) against the source's own count;
 * - headline: the mean of the per-sample values (each sample's epochs reduced by the result's epoch reducer) against
 *   the score, to 1e-9 relative, where the source says its metric is such a mean;
 * - keys: the pairing key (`sample_hash`, else `sample_id`) names one sample within the result, apart from the
 *   declared epochs of a sample.
 *
 * A source declares its facts (ResultInput.declared); this module never re-derives them. What was declared is kept
 * beside the outcome (`evalkit_reconciliation_declared`, compact JSON) so that `evalkit reconcile` can check a
 * stored record again from its stored rows alone.
 */

type Obj = Record<string, unknown>;

export const RECONCILIATION_OUTCOMES = [
  'reconciled',
  'not_checkable',
  'count_mismatch',
  'headline_mismatch',
  'key_collision',
] as const;
export type ReconciliationOutcome = (typeof RECONCILIATION_OUTCOMES)[number];

/** The keys written into `score_details.details`. */
export const RECONCILIATION_KEY = 'evalkit_reconciliation';
export const RECONCILIATION_NOTE_KEY = 'evalkit_reconciliation_note';
export const RECONCILIATION_DECLARED_KEY = 'evalkit_reconciliation_declared';

/** Relative tolerance of the headline check. */
export const HEADLINE_TOLERANCE = 1e-9;

/** What a source declares about one result. */
export interface DeclaredFacts {
  /** The source's own count of the samples behind the result. */
  n?: number;
  /** Where the count comes from (a source field, e.g. `n-samples.gsm8k.effective`). */
  nFrom?: string;
  /**
   * How the headline comes from the rows, when it does (then checked): `mean` of the per-sample values, or
   * `pass_rate`, the share of rows marked correct (`evaluation.is_correct`).
   */
  headline?: 'mean' | 'pass_rate';
  /** The headline is that mean times this (100 when the source states a percentage of per-sample values in [0, 1]). */
  scale?: number;
  /** Why the headline is not checked (e.g. "f1 is computed over the corpus"), for the note. */
  headlineWhy?: string;
}

/** A disagreement between a result's rows and its source, or that it could not be checked. */
export interface Reconciliation {
  evaluation_result_id: string;
  evaluation_name: string;
  metric: string;
  outcome: ReconciliationOutcome;
  note: string;
}

export const isDisagreement = (outcome: string | undefined): boolean =>
  outcome === 'count_mismatch' || outcome === 'headline_mismatch' || outcome === 'key_collision';

/** The facts of one instance row the checks read. */
export interface RowFacts {
  evaluation_result_id?: string | null;
  evaluation_name?: string | null;
  sample_hash?: string | null;
  sample_id?: string | null;
  epoch?: number | null;
  /** evaluation.score, else is_correct as 0/1; null when neither (or not finite). */
  value: number | null;
  /** evaluation.is_correct as 0/1, null when absent. */
  correct?: number | null;
}

/** The facts of an EEE instance row object. */
export function rowFacts(row: Obj): RowFacts {
  const metadata = row.metadata as Obj | undefined;
  // An unscored row (`metadata.score_missing: "true"` beside the placeholder score EEE requires) has no value, as
  // the store takes it (store/sample-row.ts).
  const evaluation = (metadata?.score_missing === 'true' ? {} : (row.evaluation ?? {})) as Obj;
  const score = evaluation.score;
  const value =
    typeof score === 'number'
      ? score
      : typeof evaluation.is_correct === 'boolean'
        ? Number(evaluation.is_correct)
        : null;
  const e = metadata?.epoch;
  const epoch = typeof e === 'number' ? e : typeof e === 'string' && /^\d{1,9}$/.test(e) ? Number(e) : null;
  return {
    evaluation_result_id: typeof row.evaluation_result_id === 'string' ? row.evaluation_result_id : null,
    evaluation_name: typeof row.evaluation_name === 'string' ? row.evaluation_name : null,
    sample_hash: typeof row.sample_hash === 'string' ? row.sample_hash : null,
    sample_id: typeof row.sample_id === 'string' ? row.sample_id : null,
    epoch,
    value: value !== null && Number.isFinite(value) ? value : null,
    correct: typeof evaluation.is_correct === 'boolean' ? Number(evaluation.is_correct) : null,
  };
}

interface Group {
  rows: number;
  /** Rows without a pairing key. */
  unkeyed: number;
  byHash: boolean;
  /** Every row has a sample_hash, but hashes and samples do not correspond one to one: keyed by sample_id. */
  sharedHashes?: { hashes: number; samples: number };
  /** Distinct keys: the samples. */
  sampleCount: number;
  /**
   * Calls `f` with each sample's values and the epochs of its rows (arrays reused from call to call: read them,
   * do not keep them). Rows are held by index, not as an object and two arrays per sample: a large run's samples
   * all at once made the peak memory of a conversion.
   */
  forEachSample(f: (values: readonly number[], epochs: readonly (number | null)[]) => void): void;
}

/**
 * The facts the checks read of the rows of one result (or of one evaluation name), a column each (no object per
 * row): a tally keeps every row of a run.
 */
class TallyColumns {
  readonly hashes: (string | null | undefined)[] = [];
  readonly ids: (string | null | undefined)[] = [];
  readonly epochs: (number | null | undefined)[] = [];
  readonly values: (number | null)[] = [];
  readonly correct: (number | null | undefined)[] = [];

  push(facts: RowFacts): void {
    this.hashes.push(facts.sample_hash);
    this.ids.push(facts.sample_id);
    this.epochs.push(facts.epoch);
    this.values.push(facts.value);
    this.correct.push(facts.correct);
  }
}

/** Tallies instance rows by the result they belong to, as they stream past (one pass, no row kept). */
export class RowTally {
  private readonly byId = new Map<string, TallyColumns>();
  private readonly byName = new Map<string, TallyColumns>();
  rows = 0;

  add(facts: RowFacts): void {
    this.rows++;
    const lists = facts.evaluation_result_id ? this.byId : this.byName;
    const k = facts.evaluation_result_id ?? facts.evaluation_name ?? '';
    let columns = lists.get(k);
    if (columns === undefined) lists.set(k, (columns = new TallyColumns()));
    columns.push(facts);
  }

  addRow(row: Obj): void {
    this.add(rowFacts(row));
  }

  /** The rows of a result: by its id, else (rows without one) by its evaluation name. */
  group(resultId: string | undefined, evaluationName: string, pick: 'value' | 'correct' = 'value'): Group {
    const parts = [
      ...(resultId !== undefined ? [this.byId.get(resultId)] : []),
      this.byName.get(evaluationName),
    ].filter((c): c is TallyColumns => c !== undefined);
    // The pairing key as the store takes it (store/selection.ts, KEYED_BY_HASH_SQL): the sample_hash when every row
    // has one and hashes and samples (sample_id without its #epochN) correspond one to one, else the sample key.
    const sampleKey = (c: TallyColumns, i: number): string | null | undefined => {
      const epoch = c.epochs[i];
      return epoch !== null && epoch !== undefined ? c.ids[i]?.replace(/#epoch[0-9]+/g, '') : c.ids[i];
    };
    // Each hash's sample key (and whether some hash names two): with as many hashes as keys, one to one.
    const keyOfHash = new Map<string, string>();
    const keys = new Set<string>();
    let hashNamesTwo = false;
    let rows = 0;
    let allHashed = true;
    for (const c of parts)
      for (let i = 0; i < c.hashes.length; i++) {
        rows++;
        if (!c.hashes[i]) allHashed = false;
        const hash = c.hashes[i] ?? '';
        const key = sampleKey(c, i) ?? '';
        const seen = keyOfHash.get(hash);
        if (seen === undefined) keyOfHash.set(hash, key);
        else if (seen !== key) hashNamesTwo = true;
        keys.add(key);
      }
    allHashed &&= rows > 0;
    const byHash = allHashed && !hashNamesTwo && keyOfHash.size === keys.size;
    // Each key's first row (an index over the parts' rows in turn), and the further rows of a repeated key.
    const first = new Map<string, number>();
    const further = new Map<string, number[]>();
    let unkeyed = 0;
    let index = 0;
    for (const c of parts)
      for (let i = 0; i < c.hashes.length; i++, index++) {
        const key = byHash ? c.hashes[i] : sampleKey(c, i);
        if (!key) {
          unkeyed++;
          continue;
        }
        if (!first.has(key)) first.set(key, index);
        else {
          let more = further.get(key);
          if (more === undefined) further.set(key, (more = []));
          more.push(index);
        }
      }
    const values: number[] = [];
    const epochs: (number | null)[] = [];
    const addRow = (at: number): void => {
      const c = at < parts[0].hashes.length ? parts[0] : parts[1];
      const i = c === parts[0] ? at : at - parts[0].hashes.length;
      const v = pick === 'value' ? c.values[i] : (c.correct[i] ?? null);
      if (v !== null) values.push(v);
      epochs.push(c.epochs[i] ?? null);
    };
    const forEachSample = (
      f: (values: readonly number[], epochs: readonly (number | null)[]) => void,
    ): void => {
      for (const [key, at] of first) {
        values.length = 0;
        epochs.length = 0;
        addRow(at);
        for (const more of further.get(key) ?? []) addRow(more);
        f(values, epochs);
      }
    };
    const sharedHashes = allHashed && !byHash ? { hashes: keyOfHash.size, samples: keys.size } : undefined;
    return { rows, unkeyed, byHash, sampleCount: first.size, forEachSample, sharedHashes };
  }
}

/** A sample's value from its epochs' values, by the result's epoch reducer; undefined when it cannot be computed. */
function reduce(values: readonly number[], reducer: string): number | undefined {
  if (values.length === 0) return undefined;
  if (values.length === 1) return values[0];
  const sorted = [...values].sort((a, b) => a - b);
  switch (reducer) {
    case 'mean':
      return values.reduce((a, b) => a + b, 0) / values.length;
    case 'median': {
      const m = sorted.length >> 1;
      return sorted.length % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
    }
    case 'max':
      return sorted[sorted.length - 1];
    default:
      return undefined;
  }
}

const fmt = (x: number): string => (Number.isInteger(x) ? String(x) : String(Number(x.toPrecision(10))));

/** Whether two numbers agree to `HEADLINE_TOLERANCE` relative (absolute near zero). */
export function sameHeadline(a: number, b: number): boolean {
  return Math.abs(a - b) <= HEADLINE_TOLERANCE * Math.max(1, Math.abs(a), Math.abs(b));
}

/** The outcome of one result against its rows (see the module comment). */
export function reconcileResult(
  result: Obj,
  tally: RowTally,
  declared: DeclaredFacts | undefined,
): Reconciliation {
  const id = typeof result.evaluation_result_id === 'string' ? result.evaluation_result_id : undefined;
  const name = String(result.evaluation_name ?? '');
  const config = (result.metric_config ?? {}) as Obj;
  const metric = String(config.metric_name ?? config.metric_id ?? 'score');
  const score = Number((result.score_details as Obj | undefined)?.score);
  const reducer = String(((config.additional_details ?? {}) as Obj).epoch_reducer ?? 'mean').toLowerCase();
  const out = (outcome: ReconciliationOutcome, note: string): Reconciliation => ({
    evaluation_result_id: id ?? '',
    evaluation_name: name,
    metric,
    outcome,
    note,
  });
  const g = tally.group(id, name, declared?.headline === 'pass_rate' ? 'correct' : 'value');
  if (g.rows === 0) {
    return out(
      'not_checkable',
      declared?.n !== undefined
        ? `no instance rows for this result (${declared.n} declared by the source)`
        : 'no instance rows for this result, and the source declares no sample count',
    );
  }
  const keyName = g.byHash ? 'sample_hash' : 'sample_id';
  const problems: { outcome: ReconciliationOutcome; text: string }[] = [];
  const passed: string[] = [];
  const missing: string[] = [];

  // keys: several rows of one key must be the declared epochs of one sample (distinct epoch numbers).
  let collided = 0;
  let collidedRows = 0;
  g.forEachSample((_values, epochs) => {
    if (epochs.length < 2) return;
    if (epochs.includes(null) || new Set(epochs).size < epochs.length) {
      collided++;
      collidedRows += epochs.length;
    }
  });
  if (collided > 0)
    problems.push({
      outcome: 'key_collision',
      text: `${collidedRows} rows share ${collided} ${keyName} value(s) without being epochs of one sample (${g.rows} rows, ${g.sampleCount} distinct keys)`,
    });
  if (g.unkeyed > 0)
    problems.push({ outcome: 'key_collision', text: `${g.unkeyed} row(s) without a ${keyName}` });
  // Not a check: how the rows are keyed, said first in the note.
  const keying = g.sharedHashes
    ? [
        `paired by sample_id: ${g.sharedHashes.samples} samples share ${g.sharedHashes.hashes} sample_hash value(s)`,
      ]
    : [];

  // counts
  const n = g.sampleCount;
  if (declared?.n !== undefined) {
    if (n === declared.n) passed.push(`n ${n} stored = ${declared.n} declared`);
    else problems.push({ outcome: 'count_mismatch', text: `n ${n} stored, ${declared.n} declared` });
  } else missing.push('no sample count');

  // headline
  if (declared?.headline !== undefined) {
    let sum = 0;
    let count = 0;
    let unreducible = false;
    g.forEachSample((values) => {
      const v = reduce(values, reducer);
      if (v === undefined) {
        if (values.length > 0) unreducible = true;
        return;
      }
      sum += v;
      count++;
    });
    if (unreducible) missing.push(`the epoch reducer "${reducer}" is not one the check computes`);
    else if (count === 0) missing.push('no row carries a value');
    else {
      const scale = declared.scale ?? 1;
      const mean = (sum / count) * scale;
      const what = `${declared.headline === 'mean' ? 'mean' : 'pass rate'}${scale === 1 ? '' : ` × ${scale}`}`;
      if (sameHeadline(mean, score)) passed.push(`${what} ${fmt(mean)} = headline`);
      else
        problems.push({
          outcome: 'headline_mismatch',
          text: `${what} of the rows ${fmt(mean)}, headline ${fmt(score)}`,
        });
    }
  } else missing.push(declared?.headlineWhy ?? 'the headline is not declared a mean of per-sample values');

  if (problems.length > 0) {
    const order: ReconciliationOutcome[] = ['key_collision', 'count_mismatch', 'headline_mismatch'];
    const first = order.find((o) => problems.some((p) => p.outcome === o))!;
    return out(first, [...problems.map((p) => p.text), ...keying].join('; '));
  }
  if (passed.length > 0)
    return out('reconciled', [...passed, ...missing.map((m) => `not checked: ${m}`), ...keying].join('; '));
  return out(
    'not_checkable',
    [`the source declares nothing to check against: ${missing.join('; ')}`, ...keying].join('; '),
  );
}

/** The declared facts as kept in the record (compact JSON), and back. */
export function declaredText(declared: DeclaredFacts): string {
  return JSON.stringify(declared);
}

export function declaredFrom(result: Obj): DeclaredFacts | undefined {
  const text = ((result.score_details as Obj | undefined)?.details as Obj | undefined)?.[
    RECONCILIATION_DECLARED_KEY
  ];
  if (typeof text !== 'string') return undefined;
  try {
    const d = JSON.parse(text) as Obj;
    return {
      ...(typeof d.n === 'number' ? { n: d.n } : {}),
      ...(typeof d.nFrom === 'string' ? { nFrom: d.nFrom } : {}),
      ...(d.headline === 'mean' || d.headline === 'pass_rate' ? { headline: d.headline } : {}),
      ...(typeof d.scale === 'number' && Number.isFinite(d.scale) ? { scale: d.scale } : {}),
      ...(typeof d.headlineWhy === 'string' ? { headlineWhy: d.headlineWhy } : {}),
    };
  } catch {
    return undefined;
  }
}

/** The outcome stored in a result, if any. */
export function storedReconciliation(result: Obj): { outcome: string; note: string } | undefined {
  const details = (result.score_details as Obj | undefined)?.details as Obj | undefined;
  const outcome = details?.[RECONCILIATION_KEY];
  if (typeof outcome !== 'string') return undefined;
  const note = details?.[RECONCILIATION_NOTE_KEY];
  return { outcome, note: typeof note === 'string' ? note : '' };
}

/**
 * Reconciles every result of an aggregate against the tallied rows and writes the outcome into it (in place). The
 * declared facts come from `declared` (by result id, as the converter made them), else from what the record
 * already keeps. Returns one entry per result.
 */
export function reconcileAggregate(
  aggregate: Obj,
  tally: RowTally,
  declared?: ReadonlyMap<string, DeclaredFacts>,
): Reconciliation[] {
  const results = Array.isArray(aggregate.evaluation_results) ? (aggregate.evaluation_results as Obj[]) : [];
  return results.map((result) => {
    const id = typeof result.evaluation_result_id === 'string' ? result.evaluation_result_id : '';
    const facts = declared?.get(id) ?? declaredFrom(result);
    const r = reconcileResult(result, tally, facts);
    const scoreDetails = (result.score_details ??= {}) as Obj;
    const details = (scoreDetails.details ?? {}) as Record<string, string>;
    details[RECONCILIATION_KEY] = r.outcome;
    details[RECONCILIATION_NOTE_KEY] = r.note;
    if (facts !== undefined) details[RECONCILIATION_DECLARED_KEY] = declaredText(facts);
    scoreDetails.details = details;
    return r;
  });
}

/** One result checked again (`evalkit reconcile`, `ingest --strict`): the outcome now, and the one the record keeps. */
export interface Recheck extends Reconciliation {
  /** The outcome the record keeps (null when it keeps none: not written by evalkit's converters). */
  stored_outcome: string | null;
  /** The check now gives another outcome (or note) than the one the record keeps. */
  changed: boolean;
}

/**
 * Every result of an aggregate checked again against the tallied rows, with the facts and outcome the record keeps;
 * the aggregate is not modified. The one re-check `evalkit reconcile` and `ingest --strict` share.
 */
export function recheckAggregate(aggregate: Obj, tally: RowTally): Recheck[] {
  const results = Array.isArray(aggregate.evaluation_results) ? (aggregate.evaluation_results as Obj[]) : [];
  const before = results.map((r) => storedReconciliation(r));
  return reconcileAggregate(structuredClone(aggregate), tally).map((r, i) => {
    const kept = before[i];
    return {
      ...r,
      stored_outcome: kept?.outcome ?? null,
      changed: kept !== undefined && (kept.outcome !== r.outcome || kept.note !== r.note),
    };
  });
}

/**
 * Whether a re-checked result fails: its rows disagree with the source now, or the record keeps it as reconciled and
 * it no longer is (its rows deleted, its declared facts removed: a gutted result is not a passing one).
 */
export const recheckFails = (r: { outcome: string; stored_outcome: string | null }): boolean =>
  isDisagreement(r.outcome) || (r.stored_outcome === 'reconciled' && r.outcome !== 'reconciled');

/** A failing re-check as the disagreement a reader sees (its note says what the record keeps). */
export const recheckDisagreement = (r: Recheck): Reconciliation => ({
  evaluation_result_id: r.evaluation_result_id,
  evaluation_name: r.evaluation_name,
  metric: r.metric,
  outcome: r.outcome,
  note:
    r.stored_outcome === 'reconciled' && !isDisagreement(r.outcome)
      ? `the record keeps it as reconciled, its rows now give ${r.outcome}: ${r.note}`
      : r.note,
});

/** The line a reader sees for a disagreement ("rows disagree with the source: n 8 stored, 312 declared"). */
export const disagreementText = (note: string): string => `rows disagree with the source: ${note}`;

/** The JSON string starting at `at` (its opening quote), decoded; undefined when there is none. */
function stringAt(line: string, at: number): string | undefined {
  if (line.charCodeAt(at) !== 0x22) return undefined;
  let end = at + 1;
  let escaped = false;
  while (end < line.length && line.charCodeAt(end) !== 0x22) {
    if (line.charCodeAt(end) === 0x5c) {
      escaped = true;
      end++;
    }
    end++;
  }
  return escaped ? (JSON.parse(line.slice(at, end + 1)) as string) : line.slice(at + 1, end);
}

/** The members of a row's head (before `"input"`) that the checks read, as `,"key":` needles. */
const HEAD_NEEDLES = [
  ',"evaluation_result_id":',
  ',"evaluation_name":',
  ',"sample_hash":',
  ',"sample_id":',
] as const;
const HEAD_BYTE_NEEDLES = HEAD_NEEDLES.map((needle) => Buffer.from(needle));

/**
 * A row's facts from its `evaluation` object's text and its `metadata.epoch` value's text (from its opening
 * quote), its head's string members given by `member` (by their index in HEAD_NEEDLES; null when absent).
 */
function factsOfParts(
  scores: string,
  epoch: string | undefined,
  member: (k: number) => string | null,
  unscored = false,
): RowFacts {
  const facts = rowFacts({
    evaluation: JSON.parse(scores) as Obj,
    metadata: {
      ...(epoch !== undefined ? { epoch: stringAt(epoch, 0) } : {}),
      ...(unscored ? { score_missing: 'true' } : {}),
    },
  });
  facts.evaluation_result_id = member(0);
  facts.evaluation_name = member(1);
  facts.sample_hash = member(2);
  facts.sample_id = member(3);
  return facts;
}

/**
 * The facts of one row from its JSONL text as evalkit's writers lay it out (record.ts: the keys before `"input"`,
 * then `"evaluation":{…}` of numbers and booleans, `"metadata"` last with string values), without parsing the whole
 * row: most of a row is its texts, which the checks never read. Any other layout is parsed.
 */
export function lineFacts(line: string): RowFacts {
  const head = line.indexOf(',"input":{');
  const evaluation = line.lastIndexOf(',"evaluation":{');
  if (head === -1 || evaluation < head) return rowFacts(JSON.parse(line) as Obj);
  const close = line.indexOf('}', evaluation);
  const metadata = line.lastIndexOf(',"metadata":{');
  const epochAt = metadata > evaluation ? line.indexOf('"epoch":"', metadata) : -1;
  return factsOfParts(
    line.slice(evaluation + 14, close + 1),
    epochAt === -1 ? undefined : line.slice(epochAt + 8),
    (k) => {
      const at = line.indexOf(HEAD_NEEDLES[k]);
      return at === -1 || at > head ? null : (stringAt(line, at + HEAD_NEEDLES[k].length) ?? null);
    },
    metadata > evaluation && unscoredIn(line.slice(metadata)),
  );
}

/**
 * Whether a row's metadata text (from its `,"metadata":{`) marks it unscored. The metadata's values are strings, so
 * the member is found as `"score_missing":"true"` right after `{` or `,` (not inside a string: a `"` inside one is
 * escaped).
 */
function unscoredIn(metadata: string): boolean {
  for (let at = metadata.indexOf(SCORE_MISSING); at !== -1; at = metadata.indexOf(SCORE_MISSING, at + 1)) {
    const before = metadata.charCodeAt(at - 1);
    if (before === 0x7b || before === 0x2c) return true;
  }
  return false;
}
const SCORE_MISSING = '"score_missing":"true"';

const INPUT = Buffer.from(',"input":{');
const EVALUATION = Buffer.from(',"evaluation":{');
const METADATA = Buffer.from(',"metadata":{');
const EPOCH = Buffer.from('"epoch":"');
const SCORE_MISSING_BYTES = Buffer.from(SCORE_MISSING);

/** The index after the JSON string whose opening quote is at `at` (its end if it is not closed). */
function stringEndIn(bytes: Buffer, at: number, end: number): number {
  let i = at + 1;
  while (i < end && bytes[i] !== 0x22) i += bytes[i] === 0x5c ? 2 : 1;
  return Math.min(i + 1, end);
}

/**
 * Tallies a block of JSONL rows (whole lines), each row as lineFacts reads it, but from the bytes: only the parts
 * that hold the facts are decoded (most of a row is its texts, which the checks never read).
 */
export function tallyBlock(tally: RowTally, bytes: Buffer): void {
  // Where the next `,"input":{` is, at or after the current line (-1: none left in the block). Kept from line to
  // line, so that a block without it is searched once, not once a line.
  let input = -2;
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    if (input !== -1 && input < start) input = bytes.indexOf(INPUT, start);
    if (end > start) tally.add(bytesFacts(bytes, start, end, input));
    start = end + 1;
  }
}

/** One line's facts (see tallyBlock); `input` is the first `,"input":{` at or after `start`, or -1. */
function bytesFacts(bytes: Buffer, start: number, end: number, input: number): RowFacts {
  if (input === -1 || input >= end || end - start < EVALUATION.length)
    return lineFacts(bytes.toString('utf8', start, end));
  // The last `,"metadata":{` of the line, then the last `,"evaluation":{` before it (searched back from the
  // metadata, not through it: the metadata comes last and holds the long texts).
  const metadata = bytes.lastIndexOf(METADATA, end - METADATA.length);
  const evaluation = bytes.lastIndexOf(
    EVALUATION,
    metadata > input ? metadata - EVALUATION.length : end - EVALUATION.length,
  );
  // (An `,"evaluation":{` after the metadata, or none after the input: another layout, read as lineFacts does.)
  if (evaluation < input || (metadata > input && bytes.subarray(metadata, end).includes(EVALUATION)))
    return lineFacts(bytes.toString('utf8', start, end));
  const close = bytes.indexOf(0x7d, evaluation);
  if (close === -1 || close >= end) return lineFacts(bytes.toString('utf8', start, end));
  let epoch: string | undefined;
  if (metadata > evaluation) {
    // Searched within the line: most rows have no epoch, and the block's rest is long.
    const found = bytes.subarray(metadata, end).indexOf(EPOCH);
    const at = found === -1 ? -1 : metadata + found;
    if (at !== -1) epoch = bytes.toString('utf8', at + 8, stringEndIn(bytes, at + 8, end));
  }
  // Each member decoded on its own (a fresh small string: the tally keeps it, and a slice of the decoded head
  // would keep the whole head).
  const head = bytes.subarray(start, input);
  // Searched only when the line has the text at all (most rows are scored).
  const unscored =
    metadata > evaluation &&
    bytes.subarray(metadata, end).includes(SCORE_MISSING_BYTES) &&
    unscoredIn(bytes.toString('utf8', metadata, end));
  return factsOfParts(
    bytes.toString('utf8', evaluation + 14, close + 1),
    epoch,
    (k) => stringMemberIn(head, HEAD_BYTE_NEEDLES[k]),
    unscored,
  );
}

/** The string value of the first `needle` (`,"key":`) in `head`, decoded; null when absent or not a string. */
function stringMemberIn(head: Buffer, needle: Buffer): string | null {
  const at = head.indexOf(needle);
  if (at === -1) return null;
  const open = at + needle.length;
  if (head[open] !== 0x22) return null;
  const end = stringEndIn(head, open, head.length);
  const escaped = head.subarray(open + 1, end).includes(0x5c);
  return escaped
    ? (JSON.parse(head.toString('utf8', open, end)) as string)
    : head.toString('utf8', open + 1, end - 1);
}

/** How many results reconciled, could not be checked, or disagree. */
export interface ReconciliationCounts {
  reconciled: number;
  not_checkable: number;
  disagreement: number;
}

export function reconciliationCounts(list: readonly { outcome: string }[]): ReconciliationCounts {
  const counts = { reconciled: 0, not_checkable: 0, disagreement: 0 };
  for (const r of list) {
    if (r.outcome === 'reconciled') counts.reconciled++;
    else if (isDisagreement(r.outcome)) counts.disagreement++;
    else counts.not_checkable++;
  }
  return counts;
}

/** The text lines of a record's reconciliation: a summary, then every disagreement. */
export function reconciliationLines(list: readonly Reconciliation[], indent = '  '): string[] {
  if (list.length === 0) return [];
  const c = reconciliationCounts(list);
  const lines = [
    `${indent}reconciliation: ${c.reconciled} reconciled, ${c.not_checkable} not checkable, ${c.disagreement} disagree with the source`,
  ];
  for (const r of list)
    if (isDisagreement(r.outcome))
      lines.push(`${indent}  ${r.outcome}  ${r.evaluation_result_id || r.evaluation_name}: ${r.note}`);
  return lines;
}

/** The outcomes a record keeps (as evalkit wrote them into its results), one per result that has one. */
export function storedReconciliations(aggregate: Obj): Reconciliation[] {
  const results = Array.isArray(aggregate.evaluation_results) ? (aggregate.evaluation_results as Obj[]) : [];
  const out: Reconciliation[] = [];
  for (const result of results) {
    const stored = storedReconciliation(result);
    if (stored === undefined) continue;
    const config = (result.metric_config ?? {}) as Obj;
    out.push({
      evaluation_result_id: String(result.evaluation_result_id ?? ''),
      evaluation_name: String(result.evaluation_name ?? ''),
      metric: String(config.metric_name ?? config.metric_id ?? 'score'),
      outcome: stored.outcome as ReconciliationOutcome,
      note: stored.note,
    });
  }
  return out;
}

/** The disagreements a record keeps. */
export const storedDisagreements = (aggregate: Obj): Reconciliation[] =>
  storedReconciliations(aggregate).filter((r) => isDisagreement(r.outcome));
