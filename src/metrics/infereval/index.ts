// infereval metrics: everything computed from an evaluation η (and optionally its benchmark β).
export * from './model.js';
export * from './vote.js';
export * from './evaluation-metrics.js';
