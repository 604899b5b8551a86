// Runs several test files in this one process, each inside a suite named after its path, so that a file's tests
// and its top-level hooks (before, after, beforeEach, afterEach) stay its own and a failure names its file. The
// files run one after another, in the order given. scripts/run-tests.mjs starts it as
//
//   node --import tsx --test-reporter=spec scripts/test-batch.mjs FILE ...
//
// After each file it prints `ℹ cpu FILE SECONDS`: the CPU time this process spent on the file (every thread of
// it: DuckDB's, workers'; not the processes the file started, such as Chromium). On a machine shared with other
// work a file's wall time says little about what it costs; its CPU time does.
import { after, before, describe } from 'node:test';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

for (const file of process.argv.slice(2)) {
  describe(file, async () => {
    let start;
    before(() => {
      start = process.cpuUsage();
    });
    after(() => {
      const used = process.cpuUsage(start);
      console.log(`ℹ cpu ${file} ${((used.user + used.system) / 1e6).toFixed(1)}`);
    });
    await import(pathToFileURL(resolve(file)).href);
  });
}
