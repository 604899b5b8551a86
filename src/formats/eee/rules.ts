/**
 * Cross-field rules of EEE aggregate records (every version, so a record warns the same before and after migration), as upstream's newer validator warns: each result's
 * `metric_config.metric_id` should name the metric so results of different tools line up, so a metric_id that is
 * missing, generic (a word any metric could be called) or merely the evaluation_name again is a warning.
 */
import type { CrossFieldRule, RuleIssue } from '../types.js';
import { isJsonObject } from '../../io/json-value.js';

/** metric_id values that say nothing about what was measured. */
export const GENERIC_METRIC_IDS: ReadonlySet<string> = new Set([
  'score',
  'scores',
  'elo',
  'overall',
  'value',
  'metric',
  'result',
  'results',
  'mean',
  'average',
  'avg',
  'total',
  'default',
]);

export const metricIdRule: CrossFieldRule = {
  code: 'eee.metric-id',
  description: 'metric_config.metric_id is present, specific, and not the evaluation_name',
  check(doc: unknown): RuleIssue[] {
    const issues: RuleIssue[] = [];
    const results = isJsonObject(doc) && Array.isArray(doc.evaluation_results) ? doc.evaluation_results : [];
    results.forEach((result: unknown, i: number) => {
      if (!isJsonObject(result)) return;
      const config = isJsonObject(result.metric_config) ? result.metric_config : undefined;
      const pointer = `/evaluation_results/${i}/metric_config`;
      const id = config?.metric_id;
      const warn = (message: string, at = pointer): void => {
        issues.push({ pointer: at, code: 'eee.metric-id', severity: 'warning', message });
      };
      if (typeof id !== 'string' || id.trim() === '')
        warn('metric_config has no metric_id: name the metric (e.g. "accuracy", "exact_match", "pass@1")');
      else if (GENERIC_METRIC_IDS.has(id.trim().toLowerCase()))
        warn(
          `metric_id "${id}" is generic: name what was measured (e.g. "accuracy", "win_rate")`,
          `${pointer}/metric_id`,
        );
      else if (id === result.evaluation_name)
        warn(
          `metric_id "${id}" repeats the evaluation_name: name the metric, not the benchmark`,
          `${pointer}/metric_id`,
        );
    });
    return issues;
  },
};
