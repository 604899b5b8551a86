// Statistics primitives: small, pure, seeded. Every family's metrics are built on these.
export * from './descriptive.js';
export * from './rng.js';
export * from './mersenne.js';
export * from './normal.js';
export * from './kappa.js';
export * from './intervals.js';
export * from './student-t.js';
export * from './paired.js';
export * from './mcnemar.js';
export * from './paired-proportions.js';
export * from './holm.js';
export * from './one-sided.js';
export * from './paired-bootstrap.js';
export * from './mean-interval.js';
export * from './special.js';
export * from './logistic.js';
