export * from './ranking.js';
export * from './operational.js';
export * from './thresholds.js';
export * from './score.js';
export * from './gate.js';
