// infereval metrics: everything computed from an evaluation η (and optionally its benchmark β).
export * from './model.js';
export * from './vote.js';
export * from './evaluation-metrics.js';
export * from './retest.js';
export * from './audit.js';
export * from './monotonicity.js';
export * from './structure.js';
export * from './factor-model.js';
export * from './describe.js';
export * from './compare-runs.js';
