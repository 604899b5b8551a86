// `evalkit stats --in-place` changes only the uncertainty it writes: for aggregates written in several styles (the
// fixtures come from test/fixtures/stats-in-place/generate.py) and for real aggregates of the reference data,
// (a) the file parses to what `-o` (the re-serialising path) writes, (b) putting the written values back gives
// the original bytes, (c) a second run leaves the bytes as they are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { cli as runMain } from '../helpers/cli.js';
import { projectRoot, reference, skipWithoutReference } from '../helpers/shared.js';
import { undoStatsWrites } from './splice-oracle.js';

const fixtures = join(projectRoot, 'test/fixtures/stats-in-place');
const samples = join(fixtures, 'samples.jsonl');

async function withTemp(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'evalkit-in-place-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const stats = (file: string, samplesFile: string, ...more: string[]) =>
  runMain(['stats', file, '--samples', samplesFile, '--iterations', '300', '--seed', '3', ...more]);

/**
 * Runs `stats --in-place` on `original` (written to dir/name) and checks (a), (b) and (c); returns the new text.
 * `expectedCode` is the exit code of both runs.
 */
async function checkInPlace(
  dir: string,
  name: string,
  original: string,
  samplesFile: string,
  expectedCode = 0,
  more: string[] = [],
): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, original);
  const viaOutput = await stats(path, samplesFile, '-o', join(dir, `${name}.expected`), ...more);
  assert.equal(viaOutput.code, expectedCode, viaOutput.stderr);
  const expected: unknown = JSON.parse(await readFile(join(dir, `${name}.expected`), 'utf8'));

  const first = await stats(path, samplesFile, '--in-place', ...more);
  assert.equal(first.code, expectedCode, first.stderr);
  const text = await readFile(path, 'utf8');
  assert.deepEqual(JSON.parse(text), expected, '(a) parses to what the re-serialising path writes');
  const undone = undoStatsWrites(original, text);
  assert.ok(undone.undone > 0, 'something was written');
  assert.equal(undone.text, original, '(b) outside the written values every byte is as before');

  const second = await stats(path, samplesFile, '--in-place', ...more);
  assert.equal(second.code, expectedCode, second.stderr);
  assert.match(second.stdout, /already holds these values; left unchanged/);
  assert.equal(await readFile(path, 'utf8'), text, '(c) a second run changes nothing');
  return text;
}

const fixture = (name: string) => readFile(join(fixtures, name), 'utf8');

test('stats --in-place on a Python json.dumps(indent=2) file keeps 1.0, 1e-05, escapes and layout', async () => {
  await withTemp(async (dir) => {
    const original = await fixture('python-indent2.json');
    const text = await checkInPlace(dir, 'agg.json', original, samples);
    for (const kept of ['"temperature": 1.0', '"top_p": 1e-05', '"min_score": 0.0', 'caf\\u00e9'])
      assert.ok(text.includes(kept), kept);
    // Inserted after "score", at the indentation of its siblings, nested one indent unit deeper.
    assert.match(text, /\n {8}"score": 0\.7,\n {8}"uncertainty": \{\n {10}"standard_deviation": 0\.48/);
    assert.match(text, /\n {10}"confidence_interval": \{\n {12}"lower": /);
    assert.match(text, /\n {8}"details": \{\n {10}"bootstrap_seed": "3",\n {10}"wilson_ci_lower": "0\.39/);
    assert.ok(text.endsWith('}\n'));

    // A run with another seed replaces the values written before, and only them.
    const path = join(dir, 'agg.json');
    const reseeded = await stats(path, samples, '--in-place', '--seed', '4');
    assert.equal(reseeded.code, 0, reseeded.stderr);
    const after = await readFile(path, 'utf8');
    assert.notEqual(after, text);
    assert.equal(JSON.parse(after).evaluation_results[0].score_details.details.bootstrap_seed, '4');
    assert.equal(undoStatsWrites(text, after).text, text);
  });
});

for (const [name, indent] of [
  ['python-indent4.json', '    '],
  ['python-tabs.json', '\t'],
] as const) {
  test(`stats --in-place matches the indentation of ${name}`, async () => {
    await withTemp(async (dir) => {
      const text = await checkInPlace(dir, name, await fixture(name), samples);
      const at = (level: number) => indent.repeat(level);
      assert.ok(
        text.includes(`\n${at(4)}"uncertainty": {\n${at(5)}"standard_deviation": `),
        'uncertainty at the level of its siblings',
      );
    });
  });
}

test('stats --in-place keeps CRLF line ends', async () => {
  await withTemp(async (dir) => {
    const original = (await fixture('python-indent2.json')).replace(/\n/g, '\r\n');
    const text = await checkInPlace(dir, 'crlf.json', original, samples);
    assert.equal(/[^\r]\n/.test(text), false, 'no bare LF');
    assert.ok(text.includes('"score": 0.7,\r\n        "uncertainty": {\r\n'));
  });
});

test('stats --in-place keeps one-line files on one line, with their own separators', async () => {
  await withTemp(async (dir) => {
    const spaced = await checkInPlace(dir, 'one.json', await fixture('python-one-line.json'), samples);
    assert.equal(spaced.includes('\n'), false);
    assert.ok(spaced.includes('"score": 0.7, "uncertainty": {"standard_deviation": 0.48'));
    const compact = await checkInPlace(dir, 'compact.json', await fixture('compact.json'), samples);
    assert.equal(compact.includes('\n'), false);
    assert.ok(compact.includes('"score":0.7,"uncertainty":{"standard_deviation":0.48'));
    assert.ok(compact.includes('"temperature":1.0,"top_p":1e-05'));
  });
});

test('stats --in-place replaces an existing uncertainty key by key and keeps the rest', async () => {
  await withTemp(async (dir) => {
    const original = await fixture('existing-uncertainty.json');
    const text = await checkInPlace(dir, 'agg.json', original, samples);
    const acc = JSON.parse(text).evaluation_results[0].score_details;
    assert.deepEqual(Object.keys(acc.uncertainty), [
      'standard_deviation',
      'confidence_interval',
      'num_samples',
      'standard_error',
      'num_bootstrap_samples',
    ]);
    assert.equal(acc.details.source, 'an earlier run');
    assert.equal(acc.details.bootstrap_seed, '3');
    assert.equal(text.includes('"standard_deviation": 1.0'), false, 'the old value is gone');
    assert.ok(text.includes('"num_samples": 10,'), 'an unchanged value keeps its bytes');
    // The empty uncertainty object of the second result is filled, laid out like the file.
    assert.match(text, /"uncertainty": \{\n {10}"standard_deviation": /);
  });
});

test('stats --in-place leaves a result without score_details as it is', async () => {
  await withTemp(async (dir) => {
    const original = await fixture('no-score-details.json');
    const text = await checkInPlace(dir, 'agg.json', original, samples);
    const [acc, qual] = JSON.parse(text).evaluation_results;
    assert.equal(acc.score_details, undefined);
    assert.equal(qual.score_details.uncertainty.num_samples, 4);
    const r = await stats(join(dir, 'agg.json'), samples, '--in-place', '--format', 'json');
    const summary = JSON.parse(r.stdout);
    assert.equal(summary.results[0].skipped, 'no score_details');
    assert.equal(summary.changed, false);
  });
});

test('stats --in-place follows each object: one-line score_details stay on one line, {} opens up', async () => {
  await withTemp(async (dir) => {
    const text = await checkInPlace(dir, 'agg.json', await fixture('mixed.json'), samples);
    assert.match(
      text,
      /"score_details": \{"score": 0\.7, "uncertainty": \{"standard_deviation": [^\n]*\}\}\n/,
    );
    assert.match(
      text,
      /"score": 0\.55, "details": \{\n {10}"bootstrap_seed": "3"\n {8}\},\n {8}"uncertainty"/,
    );
  });
});

// Real aggregates: the reference 0.3.0 record with its samples, and records of the datastore (which come without
// samples: rows are made up here, one set per result, from each result's id or unique name).
const records = 'eee/records';

async function listJson(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await listJson(path)));
    else if (entry.name.endsWith('.json')) found.push(path);
  }
  return found.sort();
}

function madeUpRows(record: { evaluation_results: Record<string, unknown>[] }): string {
  const names = new Map<string, number>();
  for (const r of record.evaluation_results) names.set(String(r.evaluation_name), (names.get(String(r.evaluation_name)) ?? 0) + 1); // prettier-ignore
  const rows: string[] = [];
  record.evaluation_results.forEach((r, i) => {
    const key =
      typeof r.evaluation_result_id === 'string'
        ? { evaluation_result_id: r.evaluation_result_id }
        : names.get(String(r.evaluation_name)) === 1
          ? { evaluation_name: r.evaluation_name }
          : undefined;
    if (!key) return;
    for (let k = 0; k < 5; k++)
      rows.push(JSON.stringify({ ...key, evaluation: { score: (i + k) % 3 === 0 ? 1 : 0 } }));
  });
  return rows.join('\n') + '\n';
}

test(
  'stats --in-place on real aggregates of the reference data',
  { skip: skipWithoutReference(records) },
  async () => {
    await withTemp(async (dir) => {
      const root = reference(records)!;
      const all = await listJson(root);
      // Every 25th record (14 of the 344, across collections and versions) and the 0.3.0 fixture with samples.
      const chosen = all.filter((_, i) => i % 25 === 0);
      let checked = 0;
      for (const path of chosen) {
        const original = await readFile(path, 'utf8');
        const record = JSON.parse(original);
        if (!Array.isArray(record.evaluation_results)) continue;
        const rows = join(dir, 'rows.jsonl');
        await writeFile(rows, madeUpRows(record));
        const name = relative(root, path).replace(/[/\\]/g, '_');
        await checkInPlace(dir, name, original, rows);
        checked++;
      }
      assert.ok(checked >= 10, `checked ${checked} records`);
      const pair = join(root, 'fixtures/skill_reference_conversion/data/demo-source/demo-org/demo-model');
      const base = 'f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40';
      const text = await checkInPlace(
        dir,
        `${base}.json`,
        await readFile(join(pair, `${base}.json`), 'utf8'),
        join(pair, `${base}_samples.jsonl`),
      );
      assert.ok(text.includes('"min_score": 0.0,'), 'the Python-written 0.0 stays');
    });
  },
);
