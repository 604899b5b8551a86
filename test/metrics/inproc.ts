// The in-process CLI runner lives in test/helpers/cli.ts; this name is kept for test files that import it here.
export { cli as runInProcess } from '../helpers/cli.js';
