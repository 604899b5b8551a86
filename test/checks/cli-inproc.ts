// The in-process CLI runner lives in test/helpers/cli.ts; this name is kept for test files that import it here.
export { cli } from '../helpers/cli.js';
