// Runs several test files in this one process, each inside a suite named after its path, so that a file's tests
// and its top-level hooks (before, after, beforeEach, afterEach) stay its own and a failure names its file. The
// files run one after another, in the order given. scripts/run-tests.mjs starts it as
//
//   node --import tsx --test-reporter=spec scripts/test-batch.mjs FILE ...
import { describe } from 'node:test';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

for (const file of process.argv.slice(2)) {
  describe(file, async () => {
    await import(pathToFileURL(resolve(file)).href);
  });
}
