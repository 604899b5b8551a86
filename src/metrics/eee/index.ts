export * from './binomial.js';
export * from './uncertainty.js';
export * from './judges.js';
export * from './record-uncertainty.js';
export * from './splice-uncertainty.js';
