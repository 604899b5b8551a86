// Metrics: the statistics primitives and each family's metrics built on them.
export * from './stats/index.js';
export * from './retrieval/index.js';
export * from './eee/index.js';
