// evalkit/metrics — agreement metrics of evaluations, EEE score uncertainty, retrieval scoring, and the statistics
// primitives they are built on.
export {
  evaluationMetrics,
  retest,
  audit,
  monotonicity,
  structure,
  majorityVote,
  dispersion,
} from '../metrics/infereval/index.js';
export {
  renderMetrics,
  renderRetest,
  renderAudit,
  renderMonotonicity,
  renderStructure,
} from '../report/text/metrics.js';
export { fitFactorModel } from '../metrics/infereval/factor-model.js';
export { describeBenchmark } from '../metrics/infereval/describe.js';
export { compareRuns } from '../metrics/infereval/compare-runs.js';
export {
  mean,
  variance,
  standardDeviation,
  quantileType7,
  createRng,
  MersenneTwister,
  bootstrapPercentile,
  subsamplingCI,
  wilsonInterval,
  cohensKappa,
  cohensKappaResult,
  fleissKappa,
  fleissKappaResult,
} from '../metrics/stats/index.js';
export { scoreUncertainty, meanBootstrap } from '../metrics/eee/uncertainty.js';
export { addUncertainty } from '../metrics/eee/record-uncertainty.js';
export { aggregateJudgeScores, type AggregationMethod } from '../metrics/eee/judges.js';
export { scoreResults, type ScoreOptions, type ScoreOutcome } from '../metrics/retrieval/score.js';
export { operationalFigures, type Observation } from '../metrics/retrieval/operational.js';
export { gateObservations, checkGateMetricNames, GATE_METRICS } from '../metrics/retrieval/gate.js';
export { parseThresholds, type ThresholdConfig } from '../metrics/retrieval/thresholds.js';
