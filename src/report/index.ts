export * from './model.js';
export * from './verdict.js';
export * from './escape.js';
export * from './charts.js';
export * from './html.js';
export * from './markdown.js';
export * from './evidence.js';
export * from './read-input.js';
