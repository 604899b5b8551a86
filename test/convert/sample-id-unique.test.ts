// A source that holds the same item twice (an lm-eval samples file with a repeated doc_id) never gives a pair that
// `validate` rejects: the repeat is written as `ID#2` in file order, the same on one thread and on many, the report
// says so, and ingest stores the same ids.
import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { UniqueSampleIds } from '../../src/convert/write.js';
import { cli } from '../checks/cli-inproc.js';
import { tempRoot, treeBytes } from './helpers.js';
import { writeFixture } from './lm-eval-fixture.js';
import { writeGeneratedRun } from './lm-eval-generated.js';
import { blockFacts } from '../helpers/row-facts.js';

/** Appends the file's first line again (the same doc_id and filter, another response) `times` times. */
function repeatFirstLine(file: string, times: number): void {
  const first = JSON.parse(readFileSync(file, 'utf8').split('\n')[0]);
  for (let i = 0; i < times; i++)
    appendFileSync(file, `${JSON.stringify({ ...first, resps: [[[`-${i}`, 'True']]] })}\n`);
}

test('an lm-eval samples file with a repeated doc_id converts to a pair that validates', async () => {
  const run = join(tempRoot(), 'run');
  writeFixture(run);
  repeatFirstLine(
    join(
      run,
      readdirSync(run).find((f) => f.startsWith('samples_sub_a_'))!,
    ),
    2,
  );
  const out = join(run, '..', 'out');
  const r = await cli(['convert', run, '-o', out, '--format', 'json']);
  assert.equal(r.code, 0, r.stdout);
  const record = JSON.parse(r.stdout).records[0];
  assert.ok(
    record.notes.some((n: string) =>
      /2 row\(s\) repeat a sample_id already used \(e\.g\. "sub_a\/0"/.test(n),
    ),
    record.notes.join('\n'),
  );
  const ids = readFileSync(join(out, record.samplesPath), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).sample_id as string);
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual(
    ids.filter((id) => id.startsWith('sub_a/0')),
    ['sub_a/0', 'sub_a/0#2', 'sub_a/0#3'],
  );
  const v = await cli(['validate', out]);
  assert.equal(v.code, 0, v.stdout);

  const db = join(run, '..', 'store.duckdb');
  const ingested = await cli(['ingest', run, '--db', db]);
  assert.equal(ingested.code, 0, ingested.stdout + ingested.stderr);
  const q = await cli([
    'query',
    'select count(*) as n, count(distinct sample_id) as d from samples',
    '--db',
    db,
    '--format',
    'json',
  ]);
  assert.equal(q.code, 0, q.stderr);
  const [row] = JSON.parse(q.stdout).rows ?? JSON.parse(q.stdout);
  assert.equal(Number(row.n), Number(row.d));
});

test('repeats are renamed in file order: one thread and worker threads write the same bytes', async () => {
  const base = tempRoot();
  const { generation } = writeGeneratedRun(join(base, 'run'), 2.5 * 1024 * 1024);
  repeatFirstLine(generation, 3);
  const [a, b] = [join(base, 'a'), join(base, 'b')];
  const one = await cli(['convert', join(base, 'run'), '-o', a, '--jobs', '1']);
  const many = await cli(['convert', join(base, 'run'), '-o', b, '--jobs', '3']);
  assert.equal(one.code, 0, one.stdout);
  assert.equal(many.code, 0, many.stdout);
  const [ta, tb] = [treeBytes(a), treeBytes(b)];
  assert.deepEqual([...ta.keys()], [...tb.keys()]);
  for (const [k, v] of ta) assert.ok(v.equals(tb.get(k)!), k);
  assert.equal((await cli(['validate', a])).code, 0);
});

test('UniqueSampleIds: ids with escapes and a taken suffix', () => {
  const ids = new UniqueSampleIds();
  const line = (id: string) => `{"sample_id":${JSON.stringify(id)},"x":1}\n`;
  const out = ids
    .block(Buffer.from(line('a"b') + line('a#2') + line('a') + line('a') + line('a"b') + '{"n":1}\n'))
    .toString()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).sample_id);
  assert.deepEqual(out, ['a"b', 'a#2', 'a', 'a#3', 'a"b#2', undefined]);
  assert.match(ids.note()!, /^2 row\(s\) repeat a sample_id already used \(e\.g\. "a" on rows 3 and 4\)/);
});

test('UniqueSampleIds: a block with its rows’ facts is renamed as one without, and the facts name the ids written', () => {
  const rows = ['a"b', 'a#2', 'a', 'a', 'a"b'].map(
    (id, i) => ({ evaluation_result_id: 'r', sample_id: id, sample_hash: `h${i % 2}`, value: 1 }) as const,
  );
  const bytes = Buffer.from(
    rows.map((r) => `${JSON.stringify({ ...r, input: {}, evaluation: { score: 1 } })}\n`).join(''),
  );
  const facts = blockFacts(bytes);
  const fromBytes = new UniqueSampleIds().block(bytes);
  const withFacts = new UniqueSampleIds();
  const written = withFacts.blockWithFacts(bytes, facts);
  assert.equal(written.toString(), fromBytes.toString());
  assert.deepEqual(facts, blockFacts(written));
  assert.deepEqual(
    facts.map((f) => f.sample_id),
    ['a"b', 'a#2', 'a', 'a#3', 'a"b#2'],
  );
  assert.match(
    withFacts.note()!,
    /^2 row\(s\) repeat a sample_id already used \(e\.g\. "a" on rows 3 and 4\)/,
  );
});
