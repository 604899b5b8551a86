// The task model of `evalkit run` as a library: scorers' extraction rules, reducers, templates, and task files and
// datasets in each format with their mistakes located.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  buildMessages,
  choiceIn,
  gradeOf,
  jsonIn,
  loadTask,
  normalizeAnswer,
  numbersIn,
  passAtK,
  reduceEpochs,
} from '../../src/run/task/index.js';
import { DataError } from '../../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'evalkit-task-model-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('normalising, numbers, choice letters, JSON and grades are extracted as the task reference says', () => {
  assert.equal(normalizeAnswer('  "Paris."  '), 'paris');
  assert.equal(normalizeAnswer('New   York!'), 'new york');
  assert.deepEqual(numbersIn('It costs $1,234.50, not -3 or 1e3.'), [1234.5, -3, 1000]);
  assert.deepEqual(numbersIn('no digits here'), []);
  const letters = ['A', 'B', 'C', 'D'];
  assert.equal(choiceIn('B', letters), 'B');
  assert.equal(choiceIn('(B)', letters), 'B');
  assert.equal(choiceIn('ANSWER: B', letters), 'B');
  assert.equal(choiceIn('The answer is B.', letters), 'B');
  assert.equal(choiceIn('A is wrong; I pick C', letters), 'C');
  assert.equal(choiceIn('I think E', letters), undefined);
  assert.equal(choiceIn('ABC', letters), undefined);
  assert.deepEqual(jsonIn('x\n```json\n{"a": 1}\n```\n```\n{"b": 2}\n```'), { ok: true, value: { a: 1 } });
  assert.deepEqual(jsonIn('  [1, 2] '), { ok: true, value: [1, 2] });
  assert.deepEqual(jsonIn('{a: 1}'), { ok: false });
  const grades = { C: 1, P: 0.5, I: 0 };
  assert.deepEqual(gradeOf('GRADE: I\n...\nGRADE: P', grades), { value: 0.5, extracted: 'P' });
  assert.deepEqual(gradeOf('GRADE: **C**', grades), { value: 1, extracted: 'C' });
  assert.equal(gradeOf('GRADE: X', grades).value, null);
  assert.equal(gradeOf('looks fine', grades).value, null);
});

test('reducers: mode ties go to the earliest epoch; pass@k is the unbiased estimator', () => {
  assert.equal(reduceEpochs([0, 1, 1, 0], { name: 'mode' }), 0);
  assert.equal(reduceEpochs([1, 0, 0, 1], { name: 'mode' }), 1);
  assert.equal(reduceEpochs([0.5, 1, 0], { name: 'min' }), 0);
  assert.equal(reduceEpochs([], { name: 'mean' }), undefined);
  // 1 − C(3, 2)/C(5, 2) = 1 − 3/10
  assert.ok(Math.abs(passAtK(5, 2, 2) - 0.7) < 1e-12);
  assert.equal(passAtK(4, 3, 2), 1);
  assert.equal(reduceEpochs([1], { name: 'pass_at_k', k: 2 }), undefined);
});

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

test('datasets in .jsonl, .json and .csv give the same samples; ids default to row numbers', () => {
  write('d.jsonl', '{"q": "one", "a": 1}\n\n{"q": "two", "a": [2, "two"]}\n');
  write(
    'd.json',
    JSON.stringify([
      { q: 'one', a: 1 },
      { q: 'two', a: [2, 'two'] },
    ]),
  );
  write('d.csv', 'q,a\none,1\n"two","2"\n');
  const samples = (data: string) =>
    loadTask(
      write(`t-${data}.yaml`, `name: t\ndataset: {path: ${data}, input: q, target: a}\nscorers: [match]\n`),
    ).samples.map((s) => [s.id, s.input, s.targets]);
  assert.deepEqual(samples('d.jsonl'), [
    ['1', 'one', ['1']],
    ['2', 'two', ['2', 'two']],
  ]);
  assert.deepEqual(samples('d.json'), samples('d.jsonl'));
  assert.deepEqual(samples('d.csv'), [
    ['1', 'one', ['1']],
    ['2', 'two', ['2']],
  ]);
});

test('templates: row fields, choices as lettered lines, few-shot turns; a missing field names the row', () => {
  write('m.jsonl', '{"id": "x", "input": "2+2?", "target": "4", "topic": "sums", "options": ["3", "4"]}\n');
  const task = loadTask(
    write(
      'm.yaml',
      [
        'name: m',
        'dataset: {path: m.jsonl, choices: options}',
        'system: You answer {{topic}}.',
        'messages:',
        '  - {role: user, content: "1+1?"}',
        '  - {role: assistant, content: "2"}',
        '  - {role: user, content: "{{input}}\\n{{choices}}"}',
        'scorers: [choice]',
        '',
      ].join('\n'),
    ),
  );
  assert.deepEqual(buildMessages(task, task.samples[0]), [
    { role: 'system', content: 'You answer sums.' },
    { role: 'user', content: '1+1?' },
    { role: 'assistant', content: '2' },
    { role: 'user', content: '2+2?\nA) 3\nB) 4' },
  ]);
  write('n.yaml', 'name: n\ndataset: {path: m.jsonl}\nsystem: "{{nope}}"\nscorers: [match]\n');
  assert.throws(
    () => loadTask(join(dir, 'n.yaml')),
    (e: unknown) =>
      e instanceof DataError && e.code === 'task.template-field' && /m\.jsonl:1 \(system\)/.test(e.message),
  );
});

test('task file mistakes: YAML syntax, duplicate JSON keys, unknown fields, pass_at_k without k — each located', () => {
  write('ok.jsonl', '{"input": "a", "target": "b"}\n');
  const fails = (name: string, text: string, pattern: RegExp, code: RegExp) =>
    assert.throws(
      () => loadTask(write(name, text)),
      (e: unknown) => e instanceof DataError && code.test(e.code) && pattern.test(e.message),
    );
  fails(
    'y1.yaml',
    'name: y\ndataset: {path: ok.jsonl\nscorers: [match]\n',
    /y1\.yaml:\d+:\d+ error task\.yaml/,
    /^task\.yaml$/,
  );
  fails(
    'j1.json',
    '{"name": "j", "name": "k", "dataset": {"path": "ok.jsonl"}, "scorers": ["match"]}',
    /j1\.json:1:\d+ error task\.json\.duplicate-key/,
    /^task\.json\.duplicate-key$/,
  );
  fails(
    'u1.yaml',
    'name: u\ndataset: {path: ok.jsonl}\nscorers: [match]\ntemperature: 0\n',
    /u1\.yaml:4:\d+ error task\.schema\.[a-z-]+ unexpected field "temperature".* \(at \/temperature\)/,
    /^task\.schema/,
  );
  fails(
    'p1.yaml',
    'name: p\ndataset: {path: ok.jsonl}\nscorers: [match]\nepochs: 3\nreducer: pass_at_k\n',
    /p1\.yaml:5:\d+ error task\.reducer-k pass_at_k needs k/,
    /^task\.reducer-k$/,
  );
  fails(
    's1.yaml',
    'name: s\ndataset: {path: ok.jsonl}\nscorers: [match, {match: {normalize: false}}]\n',
    /two scorers are named "match"/,
    /^task\.duplicate-scorer$/,
  );
});
