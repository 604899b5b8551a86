// Every finding of the checks across files carries a real line:column: the value it is about, or 1:1 of the file
// when it concerns the whole file (its name, its place in the tree, nobody pointing at it).
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Diagnostic } from '../../src/diagnostics.js';
import { cli } from '../helpers/cli.js';
import { EXAMPLES, MODEL_DIR, benchRepoWithStrayOutput, copyTree } from './tree-fixture.js';
import { valuePosition } from './text-position.js';

const cleanups: (() => void)[] = [];
after(() => cleanups.forEach((c) => c()));

interface Expected {
  file: string;
  line: number;
  column: number;
  pointer: string;
  code: string;
}

const WHOLE_FILE = { line: 1, column: 1, pointer: '' };

/** Every diagnostic of a `validate --format json` output, with the path of its file (listed once per file there). */
function diagnosticsOf(stdout: string): Diagnostic[] {
  const files = JSON.parse(stdout).files as { path: string; diagnostics: Diagnostic[] }[];
  return files.flatMap((f) => f.diagnostics.map((d) => ({ ...d, file: f.path })));
}

function assertPositions(all: Diagnostic[], expected: Expected[]): void {
  const codes = new Set(expected.map((e) => e.code));
  const key = (d: Expected) => `${d.file}:${d.line}:${d.column} ${d.code} at "${d.pointer}"`;
  assert.deepEqual(
    all
      .filter((d) => codes.has(d.code))
      .map(key)
      .sort(),
    expected.map(key).sort(),
  );
  const unplaced = all.filter((d) => d.line < 1 || d.column < 1);
  assert.deepEqual(unplaced, [], 'no diagnostic without a position');
}

test('validate DIR: datastore findings sit at their value, whole-file ones at 1:1 (one thread and workers)', async () => {
  const t = copyTree();
  cleanups.push(t.cleanup);
  const rel = (abs: string) => abs.slice(t.root.length + 1);

  // A row whose model_id is not the aggregate's: the row's line, the column of the value.
  const rows = t.readRows();
  rows[1].model_id = 'acme/other';
  t.writeRows(rows); // fixes checksum and total_rows
  const rowText = JSON.stringify(rows[1]);

  // The aggregate: a score outside its bounds and a wrong total_rows.
  const doc = t.readAggregate();
  doc.evaluation_results[0].score_details.score = 1.5;
  doc.detailed_evaluation_results.total_rows = 7;
  const aggregateText = `${JSON.stringify(doc, null, 2)}\n`;
  writeFileSync(t.aggregate, aggregateText);

  // A samples file nobody points at, in a folder whose name is not portable (ends with a dot).
  const orphan = join(
    t.root,
    'data/demo-bench/acme/other.',
    '0b6c8d2e-4f1a-4c3b-9d8e-7a6b5c4d3e2f_samples.jsonl',
  );
  mkdirSync(join(orphan, '..'));
  cpSync(t.samples, orphan);

  // An aggregate one folder too high that names a samples file that does not exist.
  const stray = join(t.root, 'data/demo-bench/acme', '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f.json');
  const strayDoc = t.readAggregate();
  strayDoc.evaluation_results[0].score_details.score = 0.5;
  strayDoc.detailed_evaluation_results.file_path = 'data/demo-bench/acme/gone_samples.jsonl';
  const strayText = JSON.stringify(strayDoc, null, 2);
  writeFileSync(stray, strayText);

  const expected: Expected[] = [
    {
      file: rel(t.samples),
      line: 2,
      column: valuePosition(rowText, '"model_id":"acme/other"').column,
      pointer: '/model_id',
      code: 'eee.foreign-key',
    },
    {
      file: rel(t.aggregate),
      ...valuePosition(aggregateText, '"score": 1.5'),
      pointer: '/evaluation_results/0/score_details/score',
      code: 'eee.score-out-of-range',
    },
    {
      file: rel(t.aggregate),
      ...valuePosition(aggregateText, '"total_rows": 7'),
      pointer: '/detailed_evaluation_results/total_rows',
      code: 'eee.total-rows',
    },
    { file: rel(orphan), ...WHOLE_FILE, code: 'eee.portable-name' },
    { file: rel(orphan), ...WHOLE_FILE, code: 'eee.companion-orphan' },
    { file: rel(stray), ...WHOLE_FILE, code: 'eee.layout' },
    {
      file: rel(stray),
      ...valuePosition(strayText, '"file_path": "data/demo-bench/acme/gone_samples.jsonl"'),
      pointer: '/detailed_evaluation_results/file_path',
      code: 'eee.companion-missing',
    },
  ];
  for (const jobs of ['1', '2']) {
    const r = await cli(['validate', '--format', 'json', '--max-errors', '0', '--jobs', jobs, '.'], t.root);
    assert.equal(r.code, 1, r.stderr);
    assertPositions(diagnosticsOf(r.stdout), expected);
  }
  // Text output, given the absolute path (it prints paths as given, so each expected relative path is a suffix).
  const text = await cli(['validate', '--max-errors', '0', t.root]);
  assert.equal(text.code, 1, text.stderr);
  for (const e of expected) assert.ok(text.stdout.includes(`${e.file}:${e.line}:${e.column} `), e.code);
  assert.doesNotMatch(text.stdout + text.stderr, /:0:0 /);
});

test('validate on a repository: benchmark outputs in a deprecated or unknown place are reported at 1:1', async () => {
  const repo = benchRepoWithStrayOutput();
  cleanups.push(() => rmSync(repo, { recursive: true, force: true }));
  const r = await cli(['validate', '--format', 'json', '--max-errors', '0', '.'], repo);
  assert.equal(r.code, 1, r.stderr);
  assertPositions(diagnosticsOf(r.stdout), [
    { file: 'misc/run.json', ...WHOLE_FILE, code: 'bench.path-unrecognised' },
    { file: 'results/failed-run.json', ...WHOLE_FILE, code: 'bench.path-deprecated' },
    { file: 'results/mmlu/output.json', ...WHOLE_FILE, code: 'bench.path-deprecated' },
  ]);
});

test('the fixture helper finds values where a reader would', () => {
  const text = readFileSync(
    join(EXAMPLES, 'current', MODEL_DIR, '3f6c1b2a-9d4e-4f7a-8b1c-2d3e4f5a6b7c.json'),
    'utf8',
  );
  // "total_rows": 3 is on the second-to-last line, indented by four spaces.
  const lines = text.split('\n');
  const at = valuePosition(text, '"total_rows": 3');
  assert.equal(lines[at.line - 1].slice(at.column - 1), '3');
});
