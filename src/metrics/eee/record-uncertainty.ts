import { numericScore } from '../../formats/eee/migrate.js';
import type { Diagnostic } from '../../diagnostics.js';
import { pythonFloatRepr } from '../../io/canonical.js';
import { locatePointers } from '../../io/strict-json.js';
import { scoreUncertainty, type ScoreUncertainty, type UncertaintyOptions } from './uncertainty.js';
import { isObject } from '../../io/json-value.js';

/**
 * Fills `score_details.uncertainty` of every evaluation result of an EEE aggregate record from its instance rows.
 *
 * Rows are matched to results by `evaluation_result_id` when the row has one, else by `evaluation_name`. Written:
 * standard_deviation (n − 1), standard_error {value, method "analytic"} (sd/√n), confidence_interval {lower, upper,
 * confidence_level, method "percentile_bootstrap"}, num_samples, num_bootstrap_samples. For binary scores the
 * Wilson interval is written too, as strings in `score_details.details` (`wilson_ci_lower`, `wilson_ci_upper`),
 * since the uncertainty object has room for one interval; the bootstrap seed goes to `details.bootstrap_seed`.
 */
export interface ResultUncertainty {
  index: number;
  evaluation_name: string;
  evaluation_result_id?: string;
  score?: number;
  uncertainty?: ScoreUncertainty;
  /** Why nothing was written for this result. */
  skipped?: string;
}

export interface RecordUncertaintyOutcome {
  /** A copy of the record with the uncertainty filled in (the input is not modified). */
  record: Record<string, unknown>;
  results: ResultUncertainty[];
  diagnostics: Diagnostic[];
}

interface Row {
  value: unknown;
  line: number;
  /** The row's JSON text (its line), to give row diagnostics the column of their value; else column 1. */
  text?: string;
}

type Obj = Record<string, unknown>;

export function addUncertainty(
  aggregate: unknown,
  rows: readonly Row[],
  options: UncertaintyOptions & {
    aggregateFile?: string;
    samplesFile?: string;
    /** The aggregate's JSON text, so that its diagnostics carry line:column (0:0, "no position", without it). */
    aggregateText?: string;
  } = {},
): RecordUncertaintyOutcome {
  const aggFile = options.aggregateFile ?? 'aggregate';
  const samplesFile = options.samplesFile ?? 'samples';
  const diagnostics: Diagnostic[] = [];
  /** The diagnostics about the aggregate, positioned in its text (one pass) before returning. */
  const aboutAggregate: Diagnostic[] = [];
  const done = (record: Obj, results: ResultUncertainty[]): RecordUncertaintyOutcome => {
    if (options.aggregateText !== undefined && aboutAggregate.length > 0) {
      const at = locatePointers(
        options.aggregateText,
        aboutAggregate.map((d) => d.pointer),
      );
      for (const d of aboutAggregate) Object.assign(d, at.get(d.pointer));
    }
    return { record, results, diagnostics };
  };
  const aggregateProblem = (d: Omit<Diagnostic, 'file' | 'line' | 'column'>): void => {
    const full = { file: aggFile, line: 0, column: 0, ...d };
    aboutAggregate.push(full);
    diagnostics.push(full);
  };
  if (!isObject(aggregate) || !Array.isArray(aggregate.evaluation_results)) {
    aggregateProblem({
      pointer: '/evaluation_results',
      severity: 'error',
      code: 'eee.stats.not-aggregate',
      message: 'not an EEE aggregate record: "evaluation_results" must be an array',
    });
    return done(isObject(aggregate) ? aggregate : {}, []);
  }
  const record = structuredClone(aggregate) as Obj;
  const evaluationResults = record.evaluation_results as unknown[];
  const byId = new Map<string, number>();
  const byName = new Map<string, number[]>();
  evaluationResults.forEach((r, i) => {
    if (!isObject(r)) return;
    if (typeof r.evaluation_result_id === 'string') byId.set(r.evaluation_result_id, i);
    if (typeof r.evaluation_name === 'string')
      byName.set(r.evaluation_name, [...(byName.get(r.evaluation_name) ?? []), i]);
  });

  const scores: number[][] = evaluationResults.map(() => []);
  for (const { value, line, text } of rows) {
    const problem = (pointer: string, code: string, message: string) => {
      const column = text === undefined ? 1 : (locatePointers(text, [pointer]).get(pointer)?.column ?? 1);
      diagnostics.push({ file: samplesFile, line, column, pointer, severity: 'error', code, message });
    };
    if (!isObject(value)) {
      problem('', 'eee.stats.bad-row', 'an instance row must be an object');
      continue;
    }
    let index: number | undefined;
    if (typeof value.evaluation_result_id === 'string') {
      index = byId.get(value.evaluation_result_id);
      if (index === undefined) {
        problem(
          '/evaluation_result_id',
          'eee.stats.unknown-result',
          `evaluation_result_id "${value.evaluation_result_id}" names no result of the aggregate`,
        );
        continue;
      }
    } else if (typeof value.evaluation_name === 'string') {
      const candidates = byName.get(value.evaluation_name) ?? [];
      if (candidates.length !== 1) {
        problem(
          '/evaluation_name',
          'eee.stats.unknown-result',
          candidates.length === 0
            ? `evaluation_name "${value.evaluation_name}" names no result of the aggregate`
            : `evaluation_name "${value.evaluation_name}" is ambiguous (${candidates.length} results); add evaluation_result_id`,
        );
        continue;
      }
      index = candidates[0];
    } else {
      problem(
        '/evaluation_name',
        'eee.stats.bad-row',
        'the row has neither evaluation_result_id nor evaluation_name',
      );
      continue;
    }
    const evaluation = value.evaluation;
    // A boolean (0.2.0) counts as 1 / 0, as migration converts it.
    const score = numericScore(isObject(evaluation) ? evaluation.score : undefined);
    if (score === undefined) {
      problem('/evaluation/score', 'eee.stats.no-score', 'the row has no finite evaluation.score');
      continue;
    }
    scores[index].push(score);
  }

  const results: ResultUncertainty[] = [];
  evaluationResults.forEach((r, index) => {
    const result = r as Obj;
    const entry: ResultUncertainty = {
      index,
      evaluation_name: String(result.evaluation_name ?? ''),
      ...(typeof result.evaluation_result_id === 'string'
        ? { evaluation_result_id: result.evaluation_result_id }
        : {}),
    };
    const details = isObject(result.score_details) ? result.score_details : undefined;
    if (details && typeof details.score === 'number') entry.score = details.score;
    const values = scores[index];
    if (values.length === 0 || !details) {
      entry.skipped = !details ? 'no score_details' : 'no instance rows';
      aggregateProblem({
        pointer: `/evaluation_results/${index}`,
        severity: 'warning',
        code: 'eee.stats.no-instances',
        message: `result "${entry.evaluation_name}": ${entry.skipped}; uncertainty left as it was`,
      });
      results.push(entry);
      return;
    }
    const u = scoreUncertainty(values, options);
    entry.uncertainty = u;
    if (entry.score !== undefined && Math.abs(entry.score - u.mean) > 1e-9 * Math.max(1, Math.abs(u.mean))) {
      aggregateProblem({
        pointer: `/evaluation_results/${index}/score_details/score`,
        severity: 'warning',
        code: 'eee.stats.score-mismatch',
        message: `result "${entry.evaluation_name}": score ${entry.score} differs from the mean of its ${u.num_samples} instance scores (${u.mean}); the interval describes the instance mean`,
      });
    }
    const previous = isObject(details.uncertainty) ? details.uncertainty : {};
    const uncertainty: Obj = { ...previous };
    if (u.standard_deviation !== null) uncertainty.standard_deviation = u.standard_deviation;
    if (u.standard_error !== null)
      uncertainty.standard_error = { value: u.standard_error, method: 'analytic' };
    uncertainty.confidence_interval = {
      lower: u.bootstrap.lower,
      upper: u.bootstrap.upper,
      confidence_level: u.bootstrap.confidence_level,
      method: 'percentile_bootstrap',
    };
    uncertainty.num_samples = u.num_samples;
    uncertainty.num_bootstrap_samples = u.bootstrap.iterations;
    details.uncertainty = uncertainty;
    const extra: Obj = isObject(details.details) ? details.details : {};
    extra.bootstrap_seed = String(u.bootstrap.seed);
    if (u.wilson) {
      extra.wilson_ci_lower = pythonFloatRepr(u.wilson.lower);
      extra.wilson_ci_upper = pythonFloatRepr(u.wilson.upper);
    }
    details.details = extra;
    results.push(entry);
  });
  return done(record, results);
}
