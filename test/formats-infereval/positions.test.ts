// loadInfereval / parseInfereval report each problem at the line:column of its value in the file read.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DataError } from '../../src/errors.js';
import { loadInfereval, parseInfereval } from '../../src/validate/infereval.js';
import { projectRoot } from '../helpers/shared.js';
import { positionOf, valuePosition } from '../checks/text-position.js';

const dir = join(projectRoot, 'examples', 'infereval');
const tmp = mkdtempSync(join(tmpdir(), 'evalkit-infereval-pos-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const example = (name: string): any => JSON.parse(readFileSync(join(dir, name), 'utf8'));

/** The diagnostic lines of a DataError's message: "  file:line:column severity code message (at pointer)". */
function problemLines(
  err: unknown,
): { file: string; line: number; column: number; code: string; pointer: string }[] {
  assert.ok(err instanceof DataError);
  return err.message
    .split('\n')
    .filter((l) => l.startsWith('  ') && !l.startsWith('  …'))
    .map((l) => {
      const m = /^ {2}(.+):(\d+):(\d+) error (\S+) .*?(?: \(at (\S+)\))?$/.exec(l);
      assert.ok(m, l);
      return { file: m[1], line: Number(m[2]), column: Number(m[3]), code: m[4], pointer: m[5] ?? '' };
    });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  assert.fail('expected the load to fail');
}

test('schema errors of a benchmark are reported at their values', async () => {
  const doc = example('benchmark.json');
  doc.title = 42;
  doc.items[1].analyst_verdicts[1] = 'maybe-not';
  const text = JSON.stringify(doc, null, 2);
  const path = join(tmp, 'schema.json');
  writeFileSync(path, text);
  const lines = problemLines(await rejection(loadInfereval(path, 'benchmark')));
  const byPointer = new Map(lines.map((l) => [l.pointer, l]));
  assert.deepEqual(byPointer.get('/title'), {
    file: path,
    ...valuePosition(text, '"title": 42'),
    code: 'schema.type',
    pointer: '/title',
  });
  assert.deepEqual(byPointer.get('/items/1/analyst_verdicts/1'), {
    file: path,
    ...positionOf(text, '"maybe-not"'),
    code: 'schema.enum',
    pointer: '/items/1/analyst_verdicts/1',
  });
  assert.ok(
    lines.every((l) => l.line > 0 && l.column > 0),
    'no problem without a position',
  );
});

test('a cross-field rule violation of a benchmark is reported at its value', async () => {
  const doc = example('benchmark.json');
  doc.items[1].premises[1] = 'no_such_bearer';
  const text = JSON.stringify(doc, null, 2);
  const path = join(tmp, 'rule.json');
  writeFileSync(path, text);
  const err = await rejection(loadInfereval(path, 'benchmark'));
  assert.deepEqual(problemLines(err), [
    {
      file: path,
      ...positionOf(text, '"no_such_bearer"'),
      code: 'infereval.item-bearers-exist',
      pointer: '/items/1/premises/1',
    },
  ]);
  // parseInfereval given the text says the same.
  assert.throws(
    () => parseInfereval(doc, 'benchmark', path, text),
    (parseErr: unknown) => {
      assert.deepEqual(problemLines(parseErr), problemLines(err));
      return true;
    },
  );
});

test('parseInfereval without the text: 0:0, documented as "no position"', () => {
  const doc = example('benchmark.json');
  doc.items[1].premises[1] = 'no_such_bearer';
  assert.throws(
    () => parseInfereval(doc, 'benchmark', 'mem'),
    (err: unknown) => {
      assert.deepEqual(
        problemLines(err).map((l) => [l.line, l.column]),
        [[0, 0]],
      );
      return true;
    },
  );
});

test('an evaluation with a wrongly typed value is reported at it, every problem placed', async () => {
  const doc = example('evaluation.json');
  doc.endorsement_config.n_samples = 'three';
  doc.started_at = 17;
  const text = `${JSON.stringify(doc, null, 1)}\n`;
  const path = join(tmp, 'evaluation.json');
  writeFileSync(path, text);
  const lines = problemLines(await rejection(loadInfereval(path, 'evaluation')));
  const at = (pointer: string) => lines.find((l) => l.pointer === pointer);
  assert.deepEqual(at('/endorsement_config/n_samples'), {
    file: path,
    ...valuePosition(text, '"n_samples": "three"'),
    code: 'schema.type',
    pointer: '/endorsement_config/n_samples',
  });
  assert.ok(lines.length >= 1);
  assert.ok(
    lines.every((l) => l.line > 0 && l.column > 0),
    'no problem without a position',
  );
});
