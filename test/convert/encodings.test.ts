// One encoding rule for every file convert reads (results JSON, samples JSONL on one thread or in byte ranges,
// other tools' JSON): a BOM at the start is accepted, bytes that are not UTF-8 are an error naming file:line:column,
// never turned into U+FFFD.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../checks/cli-inproc.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';
import { tempRoot } from './helpers.js';
import { writeFixture } from './lm-eval-fixture.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** A fixture run; returns its folder and the path of the file whose name starts with `prefix`. */
function runWith(prefix: string): { run: string; file: string } {
  const run = join(tempRoot(), 'run');
  writeFixture(run);
  return {
    run,
    file: join(
      run,
      readdirSync(run).find((f) => f.startsWith(prefix))!,
    ),
  };
}

/** Replaces the first byte of `needle` in line `line` (1-based) of the file with 0xFF; returns its column. */
function corrupt(file: string, line: number, needle: string): number {
  const lines = readFileSync(file).toString('utf8').split('\n');
  const at = lines[line - 1].indexOf(needle);
  const bytes = Buffer.from(lines.slice(0, line - 1).join('\n') + (line > 1 ? '\n' : ''), 'utf8').length;
  const all = readFileSync(file);
  all[bytes + Buffer.byteLength(lines[line - 1].slice(0, at))] = 0xff;
  writeFileSync(file, all);
  return [...lines[line - 1].slice(0, at)].length + 1;
}

for (const jobs of ['1', '2']) {
  test(`invalid UTF-8 in a samples line is an error with file:line:column (--jobs ${jobs})`, async () => {
    const { run, file } = runWith('samples_sub_a_');
    const column = corrupt(file, 2, 'What');
    const out = join(run, '..', 'out');
    const r = await cli(['convert', run, '-o', out, '--jobs', jobs, '--format', 'json']);
    assert.equal(r.code, 1, r.stdout);
    const failure = JSON.parse(r.stdout).failures[0];
    assert.equal(failure.code, 'encoding.invalid-utf8');
    assert.match(failure.message, new RegExp(`samples_sub_a_[^:]*:2: ${column}: invalid UTF-8 byte 0xff`));
  });
}

test('invalid UTF-8 in a results file is an error with file:line:column', async () => {
  const { run, file } = runWith('results_');
  const text = JSON.stringify(JSON.parse(readFileSync(file, 'utf8')), null, 2);
  writeFileSync(file, text);
  const column = corrupt(file, 3, 'suite');
  const r = await cli(['convert', run, '-o', join(run, '..', 'out'), '--format', 'json']);
  assert.equal(r.code, 1, r.stdout);
  assert.match(
    JSON.parse(r.stdout).failures[0].message,
    new RegExp(`results_[^:]*:3:${column}: invalid UTF-8`),
  );
});

test('a BOM on the samples files and on the results file is accepted: the same record as without', async () => {
  const plain = runWith('results_');
  const a = await cli(['convert', plain.run, '-o', join(plain.run, '..', 'out'), '--format', 'json']);
  assert.equal(a.code, 0, a.stderr);
  const boms = runWith('results_');
  for (const f of readdirSync(boms.run)) {
    const path = join(boms.run, f);
    writeFileSync(path, Buffer.concat([BOM, readFileSync(path)]));
  }
  const outB = join(boms.run, '..', 'out');
  const b = await cli(['convert', boms.run, '-o', outB, '--format', 'json']);
  assert.equal(b.code, 0, b.stdout);
  const [ra, rb] = [JSON.parse(a.stdout).records[0], JSON.parse(b.stdout).records[0]];
  assert.equal(rb.rows, ra.rows);
  const samples = readFileSync(join(outB, rb.samplesPath), 'utf8');
  assert.ok(!samples.includes('\ufeff') && !samples.includes('\ufffd'));
  // The same record: the same aggregate and rows, but for the record's id (drawn per conversion of a run folder)
  // and what follows from it (paths, the samples file's checksum).
  const same = (out: string, r: { aggregatePath: string; samplesPath: string }) => {
    const doc = JSON.parse(readFileSync(join(out, r.aggregatePath), 'utf8'));
    const id = doc.evaluation_id as string;
    const uuid = id.split('/').at(-1)!;
    delete doc.retrieved_timestamp;
    delete doc.detailed_evaluation_results.checksum;
    const rows = readFileSync(join(out, r.samplesPath), 'utf8');
    return JSON.parse(JSON.stringify({ doc, rows }).replaceAll(uuid, 'UUID'));
  };
  assert.deepEqual(same(outB, rb), same(join(plain.run, '..', 'out'), ra));
});

test(
  "another tool's JSON (promptfoo): BOM accepted, invalid UTF-8 an error with line and column",
  { skip: skipWithoutReference('peers/promptfoo/sample-export.trimmed.json') },
  async () => {
    const source = readFileSync(reference('peers/promptfoo/sample-export.trimmed.json')!);
    const dir = tempRoot();
    const withBom = join(dir, 'bom.json');
    writeFileSync(withBom, Buffer.concat([BOM, source]));
    const ok = await cli(['convert', withBom, '-o', join(dir, 'out1'), '--format', 'json']);
    assert.equal(ok.code, 0, ok.stdout);
    const bad = join(dir, 'bad.json');
    const bytes = Buffer.from(source);
    const at = bytes.indexOf('"results"');
    bytes[at + 1] = 0xfe;
    writeFileSync(bad, bytes);
    const lines = source.subarray(0, at).toString('utf8').split('\n');
    const r = await cli(['convert', bad, '-o', join(dir, 'out2'), '--format', 'json', '--from', 'promptfoo']);
    assert.equal(r.code, 1, r.stdout);
    const failure = JSON.parse(r.stdout).failures[0];
    assert.equal(failure.code, 'encoding.invalid-utf8');
    assert.match(
      failure.message,
      new RegExp(`bad\\.json:${lines.length}:${[...lines.at(-1)!].length + 2}: invalid UTF-8 byte 0xfe`),
    );
  },
);
