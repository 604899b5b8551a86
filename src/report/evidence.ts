/**
 * Reading supplied evidence for the report: a test–retest result and a parameter sweep, as JSON. The reader is
 * lenient about key names (the reference CLI and evalkit's own `--format json` outputs spell a few differently)
 * and strict about types: a value of the wrong type is a DataError naming the file and the JSON pointer.
 */
import { DataError } from '../errors.js';
import type { RetestEvidence, SweepEvidence } from './model.js';

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => x !== null && typeof x === 'object' && !Array.isArray(x);

function pick(o: Obj, keys: readonly string[]): [string, unknown] | undefined {
  for (const k of keys) if (o[k] !== undefined) return [k, o[k]];
  return undefined;
}

function num(
  o: Obj,
  keys: readonly string[],
  file: string,
  base: string,
  nullable = false,
): number | null | undefined {
  const found = pick(o, keys);
  if (!found) return undefined;
  const [k, v] = found;
  if (v === null && nullable) return null;
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw new DataError(
      'report.evidence',
      `${file}: expected a number${nullable ? ' or null' : ''} (at ${base}/${k})`,
    );
  }
  return v;
}

function str(o: Obj, keys: readonly string[]): string | undefined {
  const found = pick(o, keys);
  return found && typeof found[1] === 'string' ? found[1] : undefined;
}

/**
 * Retest: `{kappa | cohens_kappa | test_retest_kappa, agreement | agreement_rate, flip_rate,
 * interpretation | stability, flipped | flips: [{id | item_id, first | run_a | a, second | run_b | b}]}`.
 */
export function readRetestEvidence(doc: unknown, file = 'retest'): RetestEvidence {
  const o = isObj(doc) && isObj(doc.retest) ? doc.retest : doc;
  if (!isObj(o)) throw new DataError('report.evidence', `${file}: a retest result must be a JSON object`);
  const kappa = num(o, ['kappa', 'cohens_kappa', 'test_retest_kappa'], file, '', true);
  if (kappa === undefined) {
    throw new DataError(
      'report.evidence',
      `${file}: no "kappa" (or "cohens_kappa") in the retest result (at /)`,
    );
  }
  const flippedRaw = pick(o, ['flipped', 'flips', 'flipped_items'])?.[1] ?? [];
  if (!Array.isArray(flippedRaw))
    throw new DataError('report.evidence', `${file}: "flipped" must be an array (at /flipped)`);
  const flipped = flippedRaw.map((f, i) => {
    if (typeof f === 'string') return { id: f, first: '?', second: '?' };
    if (!isObj(f))
      throw new DataError('report.evidence', `${file}: a flipped item must be an object (at /flipped/${i})`);
    return {
      id: String(str(f, ['id', 'item_id']) ?? `#${i}`),
      first: String(str(f, ['first', 'verdict_a', 'run_a', 'a', 'test']) ?? '?'),
      second: String(str(f, ['second', 'verdict_b', 'run_b', 'b', 'retest']) ?? '?'),
    };
  });
  const out: RetestEvidence = { kappa, flipped };
  const agreement = num(o, ['agreement', 'agreement_rate'], file, '');
  if (typeof agreement === 'number') out.agreement = agreement;
  const flipRate = num(o, ['flip_rate'], file, '');
  if (typeof flipRate === 'number') out.flip_rate = flipRate;
  const interpretation = str(o, ['interpretation', 'stability_verdict', 'stability', 'verdict']);
  if (interpretation) out.interpretation = interpretation;
  return out;
}

/** Sweep: `{parameter, points | runs: [{value, kappa | cohens_kappa | cohens_kappa_consensus, coverage?}], kappa_range?, interpretation?}`. */
/** max − min without spreading the array into arguments (a sweep may have more points than the call stack holds). */
function spread(values: readonly number[]): number {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return hi - lo;
}

export function readSweepEvidence(doc: unknown, file = 'sweep'): SweepEvidence {
  const o = isObj(doc) && isObj(doc.sweep) ? doc.sweep : doc;
  if (!isObj(o)) throw new DataError('report.evidence', `${file}: a sweep result must be a JSON object`);
  const parameter = str(o, ['parameter', 'param', 'name']) ?? 'parameter';
  const found = pick(o, ['points', 'runs', 'results']);
  if (!found || !Array.isArray(found[1])) {
    throw new DataError(
      'report.evidence',
      `${file}: expected an array "points" (or "runs") of {value, kappa} (at /points)`,
    );
  }
  const [key, list] = found as [string, unknown[]];
  const points = list.map((p, i) => {
    const base = `/${key}/${i}`;
    if (!isObj(p)) throw new DataError('report.evidence', `${file}: expected an object (at ${base})`);
    const value = p.value ?? p[parameter];
    if (typeof value !== 'number' && typeof value !== 'string') {
      throw new DataError(
        'report.evidence',
        `${file}: expected "value" to be a number or string (at ${base}/value)`,
      );
    }
    const kappa = num(p, ['kappa', 'cohens_kappa', 'cohens_kappa_consensus'], file, base, true) ?? null;
    const coverage = num(p, ['coverage'], file, base);
    return { value, kappa, ...(typeof coverage === 'number' ? { coverage } : {}) };
  });
  const defined = points.map((p) => p.kappa).filter((k): k is number => k !== null);
  const given = num(o, ['kappa_range', 'range'], file, '', true);
  const out: SweepEvidence = {
    parameter,
    points,
    kappa_range: given !== undefined ? given : defined.length > 0 ? spread(defined) : null,
  };
  const interpretation = str(o, ['interpretation', 'verdict']);
  if (interpretation) out.interpretation = interpretation;
  return out;
}
