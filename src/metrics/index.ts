// Metrics: the statistics primitives and each family's metrics built on them.
export * from './stats/index.js';
export * from './infereval/index.js';
