// `evalkit survey import` end to end on the repository's example (examples/survey): exit codes, text and
// JSON output, --force, refusing -o = an input, a stable re-import, validate and hash of the output. The expected
// benchmark is built here by hand from the example CSV's cells, and its hash compared with `evalkit hash`.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { benchmarkHash } from '../../src/formats/infereval/hash.js';
import { parseInfereval } from '../../src/validate/infereval.js';
import { projectRoot } from '../helpers/shared.js';
import {
  startSurveyMonkeyServer,
  surveyDetails,
  surveyResponse,
  type SurveyMonkeyServer,
} from '../helpers/surveymonkey-server.js';
import { cli as runInProcess } from '../helpers/cli.js';
import { ABSTAIN, BAD, benchmarkDoc, GOOD, sidecarRows, tempDir, write } from './import-fixture.js';

const BENCH = 'examples/infereval/benchmark.json';
const CSV = 'examples/survey/ferry.qualtrics-responses.csv';
const dir = tempDir();
const base = ['survey', 'import', BENCH, CSV, '--from', 'qualtrics-csv', '--panel', 'survey'];

/** The example benchmark with the three example respondents added, written out from the CSV by hand. */
function expectedDocument(): any {
  const doc = JSON.parse(readFileSync(join(projectRoot, BENCH), 'utf8'));
  doc.analysts.push(
    {
      id: 'clinician-R_1a2B3c4D5e6F7g8',
      expertise_description: 'Deck officer on passenger ferries, 9 years',
      panel: 'survey',
    },
    { id: 'clinician-R_9h8G7f6E5d4C3b2', expertise_description: 'Meteorologist', panel: 'survey' },
    { id: 'clinician-R_0pQ1rS2tU3vW4xY', panel: 'survey' },
  );
  const v = { g: 'good', b: 'bad', a: 'abstain' } as const;
  const columns = ['ggggbbggggbgggbb', 'ggggbbagggaggabb', 'ggggbbgaaaaaaaaa'];
  const why: Record<string, string[]> = {
    'ferry-strike-off': ['The strike is off, so the timetable holds again.', '', ''],
    'wind-2': ['A gale cancels the small ferries, "always".', '', ''],
    'lawn-tarpaulin': ['', 'Dew forms on top of a tarpaulin,\nbut the grass under it stays dry.', ''],
  };
  doc.items.forEach((item: any, k: number) => {
    for (const c of columns) item.analyst_verdicts.push(v[c[k] as 'g' | 'b' | 'a']);
    item.analyst_rationales = [...(item.analyst_rationales ?? ['', '']), ...(why[item.id] ?? ['', '', ''])];
  });
  return doc;
}

describe('evalkit survey import (CLI)', () => {
  const out = join(dir, 'with-survey.json');

  it('refuses the partial respondent of the example with exit 1 and the flag that allows it', async () => {
    const r = await runInProcess([...base, '-o', out]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /error survey\.incomplete: 1 incomplete respondent\(s\): "R_0pQ1rS2tU3vW4xY" \(.*ferry\.qualtrics-responses\.csv:39\) did not finish the survey \(pass --allow-partial/,
    );
  });

  it('imports the example with --allow-partial: exactly the expected document, valid, and the hash it predicts', async () => {
    const r = await runInProcess([...base, '--allow-partial', '-o', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /survey import: 3 respondent\(s\) in examples\/survey\/ferry\.qualtrics-responses\.csv \(qualtrics-csv, support question, frame default-v1; mapping examples\/survey\/ferry\.qualtrics-responses\.csv\.mapping\.json\)/,
    );
    assert.match(
      r.stdout,
      /added {4}clinician-R_0pQ1rS2tU3vW4xY: 7 verdict\(s\), 9 blank filled with abstain, 0 rationale\(s\), not finished/,
    );
    assert.match(r.stdout, /: 2 → 5 analysts \(3 added, 0 replaced, 0 skipped\)/);
    const written = JSON.parse(readFileSync(out, 'utf8'));
    const expected = expectedDocument();
    assert.deepEqual(written, expected);
    const v = await runInProcess(['validate', out]);
    assert.equal(v.code, 0, v.stdout + v.stderr);
    const h = await runInProcess(['hash', out, BENCH]);
    const want = benchmarkHash(parseInfereval(expected, 'benchmark') as any);
    const before = benchmarkHash(
      parseInfereval(JSON.parse(readFileSync(join(projectRoot, BENCH), 'utf8')), 'benchmark') as any,
    );
    assert.notEqual(want, before);
    assert.equal(h.stdout, `${want}  ${out}\n${before}  ${BENCH}\n`);
  });

  it('refuses to overwrite without --force (exit 2), and overwrites with it', async () => {
    const r = await runInProcess([...base, '--allow-partial', '-o', out]);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /error survey\.output-exists: .*with-survey\.json exists \(pass --force to overwrite it\)/,
    );
    const f = await runInProcess([...base, '--allow-partial', '-o', out, '--force']);
    assert.equal(f.code, 0, f.stderr);
  });

  it('refuses -o naming an input (the reference allowed writing over the benchmark)', async () => {
    const copy = write(dir, 'bench-copy.json', readFileSync(join(projectRoot, BENCH), 'utf8'));
    const r = await runInProcess([
      'survey',
      'import',
      copy,
      CSV,
      '--from',
      'qualtrics-csv',
      '--panel',
      'survey',
      '--allow-partial',
      '-o',
      copy,
      '--force',
    ]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /error io\.output-is-input: the output .*bench-copy\.json is the input/);
    const r2 = await runInProcess([...base, '--allow-partial', '-o', CSV, '--force']);
    assert.equal(r2.code, 2);
    assert.match(r2.stderr, /io\.output-is-input/);
  });

  it('re-importing into the output is stable: every respondent skipped, the same bytes, json summary', async () => {
    const again = join(dir, 'again.json');
    const r = await runInProcess([
      'survey',
      'import',
      out,
      CSV,
      '--from',
      'qualtrics-csv',
      '--panel',
      'survey',
      '--allow-partial',
      '-o',
      again,
      '--format',
      'json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.deepEqual(
      s.skipped.map((k: any) => k.reason),
      ['already-imported', 'already-imported', 'already-imported'],
    );
    assert.deepEqual([s.added, s.replaced, s.analysts_before, s.analysts_after], [[], [], 5, 5]);
    assert.equal(s.benchmark_hash_before, s.benchmark_hash_after);
    assert.equal(s.output, again);
    assert.equal(readFileSync(again, 'utf8'), readFileSync(out, 'utf8'));
  });

  it('json summary of a first import names what was added', async () => {
    const r = await runInProcess([
      ...base,
      '--allow-partial',
      '--respondent',
      'R_9h8G7f6E5d4C3b2',
      '-o',
      join(dir, 'one.json'),
      '-f',
      'json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.deepEqual(s.added, [
      {
        responseId: 'R_9h8G7f6E5d4C3b2',
        analystId: 'clinician-R_9h8G7f6E5d4C3b2',
        answered: 16,
        filledAbstain: 0,
        rationales: 1,
        finished: true,
      },
    ]);
    assert.deepEqual(s.skipped, [
      { response_id: 'R_1a2B3c4D5e6F7g8', reason: 'not-selected' },
      { response_id: 'R_0pQ1rS2tU3vW4xY', reason: 'not-selected' },
    ]);
    assert.equal(s.frame_id, 'default-v1');
    assert.equal(s.analysts_after, 3);
  });

  it('usage mistakes exit 2; a frame mismatch exits 1 with the flag to use', async () => {
    const both = await runInProcess([
      ...base,
      '--allow-partial',
      '--require-complete',
      '-o',
      join(dir, 'x.json'),
    ]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /either --require-complete or --allow-partial/);
    const noFrom = await runInProcess(['survey', 'import', BENCH, CSV, '-o', join(dir, 'x.json')]);
    assert.equal(noFrom.code, 2);
    assert.match(noFrom.stderr, /--from/);
    const frame = await runInProcess([
      ...base,
      '--allow-partial',
      '--coherence-frame',
      'thin-v1',
      '-o',
      join(dir, 'x.json'),
    ]);
    assert.equal(frame.code, 1);
    assert.match(
      frame.stderr,
      /survey\.frame-mismatch: the survey was exported under frame "default-v1" .* declares frame "thin-v1".*\(declare the recorded frame with --coherence-frame/,
    );
    assert.equal(existsSync(join(dir, 'x.json')), false, 'nothing written on a refusal');
    const panel = await runInProcess([
      'survey',
      'import',
      BENCH,
      CSV,
      '--from',
      'qualtrics-csv',
      '--allow-partial',
      '-o',
      join(dir, 'x.json'),
    ]);
    assert.equal(panel.code, 2);
    assert.match(panel.stderr, /survey\.panel-needed: .*\(pass --panel NAME\)/);
  });

  it('--help explains the workflow', async () => {
    const r = await runInProcess(['survey', 'import', '--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /Workflow: `evalkit survey export B/);
    assert.match(r.stdout, /--from <source>/);
    assert.match(r.stdout, /SURVEYMONKEY_ACCESS_TOKEN/);
  });
});

describe('evalkit survey import --from surveymonkey-api (CLI)', () => {
  const TOKEN = 'cli-token-abcdef0123456789';
  let server: SurveyMonkeyServer;
  before(async () => {
    server = await startSurveyMonkeyServer({
      token: TOKEN,
      surveyId: '77',
      details: surveyDetails('77', 3, [GOOD, BAD, ABSTAIN]),
      responses: [surveyResponse('9001', 'completed', [2, 1, 3])],
    });
  });
  after(() => server.close());

  it('reads the token from SURVEYMONKEY_ACCESS_TOKEN and never prints it', async () => {
    const bench = write(dir, 'small.json', benchmarkDoc());
    const mapping = write(dir, 'small.mapping.json', sidecarRows());
    const args = [
      'survey',
      'import',
      bench,
      '77',
      '--from',
      'surveymonkey-api',
      '--mapping',
      mapping,
      '--surveymonkey-base-url',
      server.baseUrl,
    ];
    const saved = process.env.SURVEYMONKEY_ACCESS_TOKEN;
    try {
      delete process.env.SURVEYMONKEY_ACCESS_TOKEN;
      const none = await runInProcess([...args, '-o', join(dir, 'sm.json')]);
      assert.equal(none.code, 2);
      assert.match(
        none.stderr,
        /survey\.surveymonkey-token-missing: .*\(set SURVEYMONKEY_ACCESS_TOKEN, or pass --surveymonkey-token\)/,
      );
      process.env.SURVEYMONKEY_ACCESS_TOKEN = 'not-the-token-xyz';
      const bad = await runInProcess([...args, '-o', join(dir, 'sm.json')]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /survey\.surveymonkey-auth/);
      process.env.SURVEYMONKEY_ACCESS_TOKEN = TOKEN;
      const ok = await runInProcess([...args, '-o', join(dir, 'sm.json'), '-f', 'json']);
      assert.equal(ok.code, 0, ok.stderr);
      assert.ok(!ok.stdout.includes(TOKEN) && !bad.stderr.includes('not-the-token-xyz'));
      const doc = JSON.parse(readFileSync(join(dir, 'sm.json'), 'utf8'));
      assert.deepEqual(doc.analysts[1], { id: 'clinician-9001' });
      assert.deepEqual(
        doc.items.map((i: any) => i.analyst_verdicts),
        [
          ['good', 'bad'],
          ['bad', 'good'],
          ['abstain', 'abstain'],
        ],
      );
    } finally {
      if (saved === undefined) delete process.env.SURVEYMONKEY_ACCESS_TOKEN;
      else process.env.SURVEYMONKEY_ACCESS_TOKEN = saved;
    }
  });
});
