#!/usr/bin/env node
// Runs every test/**/*.test.ts through node:test + tsx. Node 20's runner neither globs nor finds .ts files and
// exits 0 when it ran nothing, so the files are listed here and a run with zero tests fails.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

function findTests(dir) {
  const found = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (name.endsWith('.test.ts')) found.push(relative(process.cwd(), path));
  }
  return found;
}

const filter = process.argv.slice(2);
const files = findTests('test').filter((f) => filter.length === 0 || filter.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error('run-tests: no test files found');
  process.exit(1);
}

const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
let tail = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  tail = (tail + chunk.toString()).slice(-200000);
});
child.on('close', (code) => {
  const tests = Number(/ℹ tests (\d+)/.exec(tail)?.[1] ?? 0);
  const pass = Number(/ℹ pass (\d+)/.exec(tail)?.[1] ?? 0);
  console.log(`run-tests: ${files.length} files, ${tests} tests, ${pass} passed`);
  if (tests === 0 || pass === 0) {
    console.error('run-tests: no test ran — failing the run');
    process.exit(1);
  }
  process.exit(code ?? 1);
});
