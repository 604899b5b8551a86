/**
 * Reading supplied evidence for the report: a test–retest result and a parameter sweep, as JSON. The reader is
 * lenient about key names (the reference CLI and evalkit's own `--format json` outputs spell a few differently)
 * and strict about types: a value of the wrong type is a DataError naming the file and the JSON pointer.
 */
import { DataError } from '../errors.js';
import type { RetestEvidence, SweepEvidence } from './model.js';
import { isObject } from '../io/json-value.js';

type Obj = Record<string, unknown>;

function pick(o: Obj, keys: readonly string[]): [string, unknown] | undefined {
  for (const k of keys) if (o[k] !== undefined) return [k, o[k]];
  return undefined;
}

/** The ranges evidence figures live in: a κ in [-1, 1], a rate or share in [0, 1], a κ range in [0, 2]. */
const KAPPA: Range = [-1, 1];
const SHARE: Range = [0, 1];
const KAPPA_SPREAD: Range = [0, 2];
type Range = readonly [number, number];

/** Above this, two κ figures that should be equal are taken as different (rounding in the producer's JSON). */
const TOLERANCE = 1e-9;

function num(
  o: Obj,
  keys: readonly string[],
  file: string,
  base: string,
  range: Range,
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
  // Out-of-range evidence is not evidence: a κ of 5 would otherwise count as support for the verdict.
  if (v < range[0] - TOLERANCE || v > range[1] + TOLERANCE) {
    throw new DataError(
      'report.evidence',
      `${file}: ${k} is ${v}, outside [${range[0]}, ${range[1]}] (at ${base}/${k})`,
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
  const o = isObject(doc) && isObject(doc.retest) ? doc.retest : doc;
  if (!isObject(o)) throw new DataError('report.evidence', `${file}: a retest result must be a JSON object`);
  const kappa = num(o, ['kappa', 'cohens_kappa', 'test_retest_kappa'], file, '', KAPPA, true);
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
    if (!isObject(f))
      throw new DataError('report.evidence', `${file}: a flipped item must be an object (at /flipped/${i})`);
    return {
      id: String(str(f, ['id', 'item_id']) ?? `#${i}`),
      first: String(str(f, ['first', 'verdict_a', 'run_a', 'a', 'test']) ?? '?'),
      second: String(str(f, ['second', 'verdict_b', 'run_b', 'b', 'retest']) ?? '?'),
    };
  });
  const out: RetestEvidence = { kappa, flipped };
  const agreement = num(o, ['agreement', 'agreement_rate'], file, '', SHARE);
  if (typeof agreement === 'number') out.agreement = agreement;
  const flipRate = num(o, ['flip_rate'], file, '', SHARE);
  if (typeof flipRate === 'number') out.flip_rate = flipRate;
  const interpretation = str(o, ['interpretation', 'stability_verdict', 'stability', 'verdict']);
  if (interpretation) out.interpretation = interpretation;
  return out;
}

/** Sweep: `{parameter, points | runs: [{value, kappa | cohens_kappa | cohens_kappa_consensus, coverage?}], kappa_range?, interpretation?}`. */
export function readSweepEvidence(doc: unknown, file = 'sweep'): SweepEvidence {
  const o = isObject(doc) && isObject(doc.sweep) ? doc.sweep : doc;
  if (!isObject(o)) throw new DataError('report.evidence', `${file}: a sweep result must be a JSON object`);
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
    if (!isObject(p)) throw new DataError('report.evidence', `${file}: expected an object (at ${base})`);
    const value = p.value ?? p[parameter];
    if (typeof value !== 'number' && typeof value !== 'string') {
      throw new DataError(
        'report.evidence',
        `${file}: expected "value" to be a number or string (at ${base}/value)`,
      );
    }
    const kappa =
      num(p, ['kappa', 'cohens_kappa', 'cohens_kappa_consensus'], file, base, KAPPA, true) ?? null;
    const coverage = num(p, ['coverage'], file, base, SHARE);
    return { value, kappa, ...(typeof coverage === 'number' ? { coverage } : {}) };
  });
  const defined = points.map((p) => p.kappa).filter((k): k is number => k !== null);
  const given = num(o, ['kappa_range', 'range'], file, '', KAPPA_SPREAD, true);
  let lowest = Infinity;
  let highest = -Infinity;
  for (const k of defined) {
    lowest = Math.min(lowest, k);
    highest = Math.max(highest, k);
  }
  const computed = defined.length > 0 ? highest - lowest : null;
  if (given != null && computed !== null && Math.abs(given - computed) > 1e-6)
    throw new DataError(
      'report.evidence',
      `${file}: kappa_range ${given} is not the spread of the points' κ (${computed}) (at /kappa_range)`,
    );
  const out: SweepEvidence = {
    parameter,
    points,
    kappa_range: given !== undefined ? given : computed,
  };
  const interpretation = str(o, ['interpretation', 'verdict']);
  if (interpretation) out.interpretation = interpretation;
  return out;
}
