import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cli as inProcess, runCli } from '../helpers/cli.js';
import { instanceRow, jsonl } from './fixtures.js';

/** The real CLI, in this process. */
const runInProcess = (args: string[], input = '') => inProcess(args, { input });

// The fixtures in test/fixtures/validate were written by test/validate/fixtures.ts (see badJsonl for bad.jsonl).
const F = 'test/fixtures/validate';
const cli = (args: string[], input?: string) =>
  runInProcess(
    ['validate', ...args.map((a) => (/^(good|bad|pretty|unknown|tree|\*\*)/.test(a) ? `${F}/${a}` : a))],
    input,
  );

describe('evalkit validate', () => {
  it('exits 0 when every document is valid', async () => {
    const r = await cli(['good.jsonl', '--schema-only']);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /✔ 1 file, 3 documents: all valid/);
  });

  it('exits 1 and prints one positioned line per mistake', async () => {
    const r = await cli(['bad.jsonl', '--schema-only']);
    assert.equal(r.code, 1, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.match(
      lines[0],
      /^test\/fixtures\/validate\/bad\.jsonl:2:1 error schema\.required missing required fields "model_id", "evaluation"$/,
    );
    assert.match(
      lines[1],
      /^test\/fixtures\/validate\/bad\.jsonl:3:\d+ warning json\.duplicate-key duplicate key "evaluation_name".* \(at \/evaluation_name\)$/,
    );
    assert.match(lines[2], /^test\/fixtures\/validate\/bad\.jsonl:4:\d+ error json\.nan NaN /);
    assert.match(
      lines[3],
      /^test\/fixtures\/validate\/bad\.jsonl:6:\d+ error schema\.type must be number, found string \(at \/evaluation\/score\)$/,
    );
    assert.match(lines[4], /5 documents: 2 valid, 3 invalid \(3 errors, 1 warning\)/);
    assert.equal(lines.length, 5);
  });

  it('strict-JSON issues are errors, but with --schema-only those that leave a value are warnings', async () => {
    const full = JSON.parse((await cli(['bad.jsonl', '--format', 'json'])).stdout);
    const dup = full.files[0].diagnostics.find((d: { code: string }) => d.code === 'json.duplicate-key');
    assert.equal(dup.severity, 'error');
    assert.equal(full.files[0].invalid, 4);
  });

  it('--format json prints the documented object', async () => {
    const r = await cli(['good.jsonl', 'bad.jsonl', 'pretty.json', '--format', 'json', '--schema-only']);
    assert.equal(r.code, 1);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(out), ['summary', 'files']);
    assert.deepEqual(out.summary, { files: 3, documents: 9, valid: 5, invalid: 4, errors: 4, warnings: 1 });
    assert.deepEqual(
      out.files.map((f: { path: string; documents: number; invalid: number }) => [
        f.path,
        f.documents,
        f.invalid,
      ]),
      [
        [`${F}/good.jsonl`, 3, 0],
        [`${F}/bad.jsonl`, 5, 3],
        [`${F}/pretty.json`, 1, 1],
      ],
    );
    const d = out.files[2].diagnostics[0];
    assert.deepEqual(Object.keys(d), [
      'line',
      'column',
      'pointer',
      'severity',
      'code',
      'message',
      'type',
      'schema_version',
    ]);
    assert.deepEqual(
      [d.line, d.column, d.pointer, d.code, d.type, d.schema_version],
      [6, 16, '/sample_id', 'schema.type', 'eee.instance', '0.3.0'],
    );
  });

  it('--format github prints workflow commands', async () => {
    const r = await cli(['bad.jsonl', '--format', 'github', '--schema-only']);
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /^::error file=test\/fixtures\/validate\/bad\.jsonl,line=2,col=1,title=schema\.required::missing required fields/m,
    );
    assert.match(
      r.stdout,
      /^::error file=test\/fixtures\/validate\/bad\.jsonl,line=6,col=\d+,title=schema\.type::must be number/m,
    );
  });

  it('--max-errors limits what is shown, not what is counted; --quiet drops the summary', async () => {
    const r = await cli(['bad.jsonl', '--max-errors', '1', '--schema-only']);
    assert.equal(r.code, 1);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 2);
    assert.match(lines[1], /3 errors, 1 warning.*3 more not shown/);
    const q = await cli(['bad.jsonl', '--quiet', '--schema-only']);
    assert.equal(q.stdout.trim().split('\n').length, 3);
    assert.doesNotMatch(q.stdout, /invalid/);
  });

  it('reads standard input as JSON Lines or as one JSON document', async () => {
    const lines = await cli(
      ['-', '--schema-only'],
      jsonl([instanceRow(1), instanceRow(2, { sample_id: 2 })]),
    );
    assert.equal(lines.code, 1);
    assert.match(lines.stdout, /^-:2:\d+ error schema\.type .*\(at \/sample_id\)$/m);
    const doc = await cli(['-', '--schema-only'], JSON.stringify(instanceRow(1), null, 2));
    assert.equal(doc.code, 0, doc.stdout);
    assert.match(doc.stdout, /1 document: all valid/);
  });

  it('walks directories and expands globs', async () => {
    const dir = await cli(['tree', '--format', 'json', '--schema-only']);
    assert.deepEqual(
      JSON.parse(dir.stdout).files.map((f: { path: string }) => f.path),
      [`${F}/tree/sub/more.jsonl`],
    );
    const glob = await cli(['**/*.jsonl', '--format', 'json', '--schema-only']);
    assert.deepEqual(
      JSON.parse(glob.stdout).files.map((f: { path: string }) => f.path),
      [`${F}/bad.jsonl`, `${F}/good.jsonl`, `${F}/tree/sub/more.jsonl`],
    );
  });

  it('an undetectable document is an error that says what was expected; --type forces', async () => {
    const r = await cli(['unknown.json']);
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /validate\/unknown\.json:1:1 error detect\.unknown-type cannot tell what this document is: expected one of eee\.aggregate/,
    );
    const forced = await cli([
      'unknown.json',
      '--type',
      'eee.instance',
      '--schema-version',
      '0.3.0',
      '--schema-only',
    ]);
    assert.equal(forced.code, 1);
    assert.match(forced.stdout, /schema\.required missing required fields "schema_version", "evaluation_id"/);
  });

  it('exits 2 on usage and I/O errors, without a stack trace', async () => {
    for (const args of [
      ['missing.json'],
      ['good.jsonl', '--type', 'nope'],
      ['good.jsonl', '--max-errors', 'x'],
      [],
    ]) {
      const r = await cli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
    }
    assert.match(
      (await cli(['missing.json'])).stderr,
      /evalkit: error io\.not-found: no such file or directory: missing\.json/,
    );
  });

  it('as a real process: exit code, standard input and output', async () => {
    const r = await runCli(['validate', '-', '--schema-only'], {
      input: jsonl([instanceRow(1), '{"a": 1, "a": 2}']),
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^-:2:10 warning json\.duplicate-key /m);
  });

  it('--jobs 2 prints the same as --jobs 1', async () => {
    const args = ['good.jsonl', 'bad.jsonl', 'pretty.json', 'tree', '--format', 'json', '--schema-only'];
    const [one, two] = await Promise.all([cli([...args, '--jobs', '1']), cli([...args, '--jobs', '2'])]);
    assert.equal(one.code, 1);
    assert.equal(two.stdout, one.stdout);
  });

  it('--schema-only reports nothing beyond the schema', async () => {
    const r = await runInProcess(['validate', 'examples', '--schema-only', '--format', 'json']);
    const out = JSON.parse(r.stdout);
    for (const f of out.files) {
      for (const d of f.diagnostics) assert.match(d.code, /^(schema|json|detect)\./, `${f.path}: ${d.code}`);
    }
  });

  it('validates the examples/ folder without an internal error; its validate examples are valid', async () => {
    const r = await runInProcess(['validate', 'examples', '--format', 'json']);
    assert.notEqual(r.code, 2, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.ok(out.summary.documents > 0);
    const mine = out.files.filter((f: { path: string }) => f.path.startsWith('examples/validate/'));
    assert.ok(mine.length > 0);
    for (const f of mine) assert.equal(f.invalid, 0, JSON.stringify(f.diagnostics));
  });
});
