// Every diagnostic of `evalkit stats` carries the line:column of its value in the file it is about.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addUncertainty } from '../../src/metrics/eee/record-uncertainty.js';
import type { Diagnostic } from '../../src/diagnostics.js';
import { cli as runMain } from '../helpers/cli.js';
import { positionOf, valuePosition } from '../checks/text-position.js';

// Hand-laid-out so that each value the diagnostics concern sits at a place of its own.
const AGGREGATE = [
  '{',
  '  "schema_version": "0.3.0",',
  '  "evaluation_results": [',
  '    {"evaluation_result_id": "acc", "evaluation_name": "précision",',
  '     "score_details": {"details": {}, "score": 0.9}},',
  '    {"evaluation_result_id": "qual", "evaluation_name": "quality", "score_details": {"score": 0.5}}',
  '  ]',
  '}',
  '',
].join('\n');

const row = (fields: Record<string, unknown>) => JSON.stringify({ sample_id: 's', ...fields });
const ROWS = [
  row({ evaluation_result_id: 'acc', evaluation: { score: 1 } }),
  row({ evaluation_result_id: 'acc', evaluation: { score: 0 } }),
  row({ evaluation_result_id: 'zzz', evaluation: { score: 1 } }),
  '',
  row({ note: 'ünïcode first', evaluation_result_id: 'acc', evaluation: { score: 'high' } }),
];

/** The expected diagnostics: positions found in the fixture texts, not copied from an output. */
function expected(aggregateFile: string, samplesFile: string) {
  const rowLine = (i: number) => i + 1;
  const inRow = (i: number, keyAndValue: string) => ({
    line: rowLine(i),
    column: valuePosition(ROWS[i], keyAndValue).column,
  });
  return [
    {
      file: samplesFile,
      ...inRow(2, '"evaluation_result_id":"zzz"'),
      pointer: '/evaluation_result_id',
      code: 'eee.stats.unknown-result',
    },
    {
      file: samplesFile,
      ...inRow(4, '"score":"high"'),
      pointer: '/evaluation/score',
      code: 'eee.stats.no-score',
    },
    {
      file: aggregateFile,
      ...valuePosition(AGGREGATE, '"score": 0.9'),
      pointer: '/evaluation_results/0/score_details/score',
      code: 'eee.stats.score-mismatch',
    },
    {
      file: aggregateFile,
      ...positionOf(AGGREGATE, '{"evaluation_result_id": "qual"'),
      pointer: '/evaluation_results/1',
      code: 'eee.stats.no-instances',
    },
  ];
}

const pick = (ds: Diagnostic[]) =>
  ds.map(({ file, line, column, pointer, code }) => ({ file, line, column, pointer, code }));

test('addUncertainty positions its diagnostics in the texts it is given', () => {
  const rows = ROWS.flatMap((text, i) =>
    text === '' ? [] : [{ value: JSON.parse(text), line: i + 1, text }],
  );
  const out = addUncertainty(JSON.parse(AGGREGATE), rows, {
    iterations: 50,
    aggregateFile: 'agg.json',
    samplesFile: 'rows.jsonl',
    aggregateText: AGGREGATE,
  });
  assert.deepEqual(pick(out.diagnostics), expected('agg.json', 'rows.jsonl'));
});

test('addUncertainty without texts: rows at column 1 of their line, the aggregate at 0:0 ("no position")', () => {
  const rows = ROWS.flatMap((text, i) => (text === '' ? [] : [{ value: JSON.parse(text), line: i + 1 }]));
  const out = addUncertainty(JSON.parse(AGGREGATE), rows, { iterations: 50 });
  const rowCodes = new Set(['eee.stats.unknown-result', 'eee.stats.no-score']);
  assert.deepEqual(
    out.diagnostics.map((d) => [d.code, d.line, d.column]),
    expected('', '').map((d) => (rowCodes.has(d.code) ? [d.code, d.line, 1] : [d.code, 0, 0])),
  );
});

test('addUncertainty: a document that is no aggregate is reported where its evaluation_results lies', () => {
  const text = '{\n  "evaluation_results": {"not": "a list"}\n}\n';
  const out = addUncertainty(JSON.parse(text), [], { aggregateFile: 'x.json', aggregateText: text });
  assert.deepEqual(pick(out.diagnostics), [
    {
      file: 'x.json',
      ...valuePosition(text, '"evaluation_results": {'),
      pointer: '/evaluation_results',
      code: 'eee.stats.not-aggregate',
    },
  ]);
});

test('evalkit stats prints every diagnostic at the line:column of its value', async () => {
  const root = await mkdtemp(join(tmpdir(), 'evalkit-stats-pos-'));
  try {
    const agg = join(root, 'agg.json');
    const samples = join(root, 'rows.jsonl');
    await writeFile(agg, AGGREGATE);
    await writeFile(samples, ROWS.join('\n') + '\n');
    const r = await runMain(['stats', agg, '--samples', samples, '--iterations', '50', '--format', 'json']);
    assert.equal(r.code, 1, r.stderr);
    const diagnostics: Diagnostic[] = JSON.parse(r.stdout).diagnostics;
    assert.deepEqual(pick(diagnostics), expected(agg, samples));
    assert.ok(diagnostics.every((d) => d.line > 0 && d.column > 0));
    const text = await runMain(['stats', agg, '--samples', samples, '--iterations', '50']);
    for (const d of expected(agg, samples))
      assert.ok(
        text.stderr.includes(`${d.file}:${d.line}:${d.column} `),
        `${d.code} printed at its position`,
      );
    assert.doesNotMatch(text.stderr, /:0:0 /);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
