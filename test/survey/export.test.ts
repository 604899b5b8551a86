// survey export: the Apps Script run in a sandbox against a recording FormApp (hostile item texts stay texts), the
// .qsf read back (question texts, choices, DataExportTags, one block per item under a block randomiser), the CSV
// sheet, the sidecar, both question forms and every frame's header, the errors, and the round trip: export → answers
// filled in the platform's own response format → `survey import` → the analysts' verdicts are the ones filled in.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import vm from 'node:vm';
import { parseInfereval } from '../../src/validate/infereval.js';
import type { Benchmark } from '../../src/formats/infereval/types.js';
import { parseCsv } from '../../src/io/csv-reader.js';
import { BUILTIN_COHERENCE_FRAMES } from '../../src/formats/infereval/coherence-frames.js';
import { planPrompts } from '../../src/formats/infereval/prompts.js';
import { CSV_COLUMNS } from '../../src/survey/export/csv.js';
import { exportSurvey } from '../../src/survey/export/index.js';
import { readMappingSidecar } from '../../src/survey/mapping.js';
import { cli } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';
import {
  ABSTAIN,
  BAD,
  COHERENT,
  csvLine,
  GOOD,
  INCOHERENT,
  ODD_TAG,
  UNCLEAR,
  tempDir,
  write,
} from './import-fixture.js';

const HOSTILE = 'a "quoted" </script> `tick` ${x} */ \u2028 line\nbreak \\ <b>bold</b> & done';

function benchmarkDoc(): Record<string, unknown> {
  return {
    schema_version: '1.0',
    id: 'survey-export-test',
    bearers: {
      p: { expression: 'it rained $overnight$' },
      q: { expression: 'the lawn is wet' },
      r: { expression: HOSTILE },
      s: { expression: 'the sprinkler ran' },
    },
    analysts: [{ id: 'seed', display_name: 'Seed analyst' }],
    items: [
      { id: 'c1', premises: ['p'], conclusions: ['q'], analyst_verdicts: ['good'] },
      { id: 'c2', premises: ['r', 'p'], conclusions: ['q'], analyst_verdicts: ['bad'] },
      { id: 'odd-id', premises: ['r'], conclusions: ['q'], analyst_verdicts: ['abstain'] },
    ],
  };
}
const load = (doc: Record<string, unknown>): Benchmark => parseInfereval(doc, 'benchmark', 'test');

/** What the support question for an item must say, written out here rather than taken from the code. */
const SUPPORT_TEXT: Record<string, string> = {
  c1: `Given the following premises, is the conclusion a good diagnostic inference, a bad one, or are you unable to judge?\n\nPremises:\n- it rained overnight\n\nConclusion:\n- the lawn is wet`,
  c2: `Given the following premises, is the conclusion a good diagnostic inference, a bad one, or are you unable to judge?\n\nPremises:\n- it rained overnight\n- ${HOSTILE}\n\nConclusion:\n- the lawn is wet`,
  'odd-id': `Given the following premises, is the conclusion a good diagnostic inference, a bad one, or are you unable to judge?\n\nPremises:\n- ${HOSTILE}\n\nConclusion:\n- the lawn is wet`,
};
const SUPPORT_CHOICES = [GOOD, BAD, ABSTAIN];

/** Runs an Apps Script in a sandbox whose FormApp records every call. */
function runScript(source: string): {
  calls: { item: string; method: string; arg: unknown }[];
  logs: string[];
} {
  const calls: { item: string; method: string; arg: unknown }[] = [];
  const logs: string[] = [];
  const item = (kind: string) => {
    const proxy: Record<string, (arg: unknown) => unknown> = {};
    for (const method of ['setTitle', 'setHelpText', 'setChoiceValues', 'setRequired'])
      proxy[method] = (arg) => {
        calls.push({ item: kind, method, arg });
        return proxy;
      };
    return proxy;
  };
  const form = {
    setProgressBar: () => undefined,
    setCollectEmail: () => undefined,
    addParagraphTextItem: () => item('paragraph'),
    addPageBreakItem: () => item('page'),
    addMultipleChoiceItem: () => item('choice'),
    getPublishedUrl: () => 'https://forms.example/published',
    getEditUrl: () => 'https://forms.example/edit',
  };
  const context = vm.createContext({
    FormApp: {
      create: (title: string) => (calls.push({ item: 'form', method: 'create', arg: title }), form),
    },
    Logger: { log: (s: string) => logs.push(s) },
  });
  vm.runInContext(`${source}\ncreateForm();`, context);
  return { calls, logs };
}

test('google-forms-gas: the script builds the form with the exact texts, and a hostile item text stays text', () => {
  const out = exportSurvey(load(benchmarkDoc()), { to: 'google-forms-gas', title: 'T "x" */' });
  const { calls, logs } = runScript(out.text);
  assert.deepEqual(calls[0], { item: 'form', method: 'create', arg: 'T "x" */' });
  const titles = calls.filter((c) => c.method === 'setTitle').map((c) => c.arg);
  assert.equal(titles.length, 1 + 3 * 3);
  assert.deepEqual(titles.slice(1, 4), ['Item 1 of 3', 'Item 1 verdict', 'Item 1 rationale (optional)']);
  const pages = calls.filter((c) => c.item === 'page' && c.method === 'setHelpText').map((c) => c.arg);
  assert.deepEqual(pages, [SUPPORT_TEXT.c1, SUPPORT_TEXT.c2, SUPPORT_TEXT['odd-id']]);
  const choices = calls
    .filter((c) => c.method === 'setChoiceValues')
    .map((c) => JSON.parse(JSON.stringify(c.arg)));
  assert.deepEqual(choices, [SUPPORT_CHOICES, SUPPORT_CHOICES, SUPPORT_CHOICES]);
  assert.deepEqual(logs, [
    'Form created: https://forms.example/published',
    'Edit: https://forms.example/edit',
  ]);
  assert.match(out.summary.warnings.join('\n'), /cannot shuffle part of a form/);
  const bare = exportSurvey(load(benchmarkDoc()), {
    to: 'google-forms-gas',
    includeRationales: false,
    randomizeItems: false,
  });
  const bareTitles = runScript(bare.text).calls.filter((c) => c.method === 'setTitle');
  assert.equal(bareTitles.length, 1 + 2 * 3, 'no rationale questions');
  assert.deepEqual(bare.summary.warnings, []);
  assert.ok(bare.mapping.every((r) => r.rationale_data_export_tag === null));
});

const unhtml = (s: string): string =>
  s
    .replace(/<br>/g, '\n')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

test('qualtrics-qsf: question HTML, choices and tags per item, one block per item under a block randomiser', () => {
  const out = exportSurvey(load(benchmarkDoc()), { to: 'qualtrics-qsf' });
  const qsf = JSON.parse(out.text);
  const questions = qsf.SurveyElements.filter((e: any) => e.Element === 'SQ').map((e: any) => e.Payload);
  const byTag = new Map(questions.map((q: any) => [q.DataExportTag, q]));
  assert.deepEqual(
    [...byTag.keys()],
    ['expertise', 'c1', 'c1_rationale', 'c2', 'c2_rationale', ODD_TAG, `${ODD_TAG}_rationale`],
  );
  for (const [id, tag] of [
    ['c1', 'c1'],
    ['c2', 'c2'],
    ['odd-id', ODD_TAG],
  ]) {
    const q: any = byTag.get(tag);
    assert.equal(q.QuestionType, 'MC');
    assert.equal(q.Validation.Settings.ForceResponse, 'ON');
    assert.equal(unhtml(q.QuestionText), SUPPORT_TEXT[id]);
    assert.deepEqual(
      q.ChoiceOrder.map((k: string) => q.Choices[k].Display),
      SUPPORT_CHOICES,
    );
  }
  // The hostile text is escaped: no markup of the item's reaches Qualtrics' HTML.
  const c2: any = byTag.get('c2');
  assert.ok(!c2.QuestionText.includes('<b>') && !c2.QuestionText.includes('</script>'));
  const blocks = qsf.SurveyElements.find((e: any) => e.Element === 'BL').Payload;
  assert.equal(blocks.length, 4);
  const qidOf = (tag: string) => (byTag.get(tag) as any).QuestionID;
  assert.deepEqual(
    blocks[2].BlockElements.map((e: any) => e.QuestionID),
    [qidOf('c2'), qidOf('c2_rationale')],
    'a rationale stays in its verdict\u2019s block',
  );
  const flow = qsf.SurveyElements.find((e: any) => e.Element === 'FL').Payload.Flow;
  assert.equal(flow[0].ID, 'BL_expertise');
  assert.equal(flow[1].Type, 'BlockRandomizer');
  assert.deepEqual(
    flow[1].Flow.map((f: any) => f.ID),
    blocks.slice(1).map((b: any) => b.ID),
  );
  const fixed = JSON.parse(
    exportSurvey(load(benchmarkDoc()), { to: 'qualtrics-qsf', randomizeItems: false }).text,
  );
  const fixedFlow = fixed.SurveyElements.find((e: any) => e.Element === 'FL').Payload.Flow;
  assert.deepEqual(
    fixedFlow.map((f: any) => f.Type),
    ['Block', 'Block', 'Block', 'Block'],
  );
});

test('csv: one quoted row per item with the titles import reads; coherence questions under each frame', () => {
  const doc = benchmarkDoc();
  (doc.items as any[]).push({
    id: 'multi',
    premises: ['p'],
    conclusions: ['q', 's'],
    analyst_verdicts: ['bad'],
  });
  const benchmark = load(doc);
  for (const frame of BUILTIN_COHERENCE_FRAMES) {
    const out = exportSurvey(benchmark, { to: 'csv', questionForm: 'coherence', coherenceFrame: frame.id });
    const records = parseCsv(out.text, 'sheet.csv').map((r) => r.fields);
    assert.deepEqual(records[0], [...CSV_COLUMNS]);
    assert.equal(records.length, 1 + 4);
    const model = planPrompts(benchmark, {
      questionForm: 'coherence',
      coherenceFrameId: frame.id,
      paraphraseVariant: 0,
      stripTex: true,
    });
    benchmark.items.forEach((item, i) => {
      const row = records[i + 1];
      assert.deepEqual(row.slice(0, 4), [
        String(i + 1),
        item.id,
        `Item ${i + 1} verdict`,
        `Item ${i + 1} rationale (optional)`,
      ]);
      // The person reads the frame's header, then the very position the model is asked about.
      assert.equal(row[4], `${frame.surveyHeader}\n\n${model.build(item).user}`);
      assert.deepEqual(row.slice(5, 8), [COHERENT, INCOHERENT, UNCLEAR]);
      assert.deepEqual(row.slice(8), ['coherence', frame.id]);
    });
    assert.ok(out.mapping.every((r) => r.frame_id === frame.id && r.question_form === 'coherence'));
  }
  assert.match(out4(benchmark), /item "multi" has 2 conclusions; the support question takes exactly one/);
});

function out4(benchmark: Benchmark): string {
  try {
    exportSurvey(benchmark, { to: 'csv' });
    return 'no error';
  } catch (e) {
    return (e as Error).message;
  }
}

test('CLI: files and sidecar written, --force, unknown frame, output-is-input, support on several conclusions', async () => {
  const dir = tempDir();
  const bench = write(dir, 'b.json', benchmarkDoc());
  const first = await cli(
    ['survey', 'export', bench, '--to', 'qualtrics-qsf', '-o', 's.qsf', '--format', 'json'],
    dir,
  );
  assert.equal(first.code, 0, first.stderr);
  const summary = JSON.parse(first.stdout);
  assert.deepEqual(
    [summary.items, summary.question_form, summary.frame_id, summary.mapping, summary.randomized],
    [3, 'support', 'default-v1', 's.qsf.mapping.json', true],
  );
  const rows = await readMappingSidecar(join(dir, 's.qsf.mapping.json'));
  assert.deepEqual(
    rows.map((r) => [r.item_id, r.verdict_data_export_tag, r.was_hashed]),
    [
      ['c1', 'c1', false],
      ['c2', 'c2', false],
      ['odd-id', ODD_TAG, true],
    ],
  );
  const before = readFileSync(join(dir, 's.qsf'));
  const again = await cli(['survey', 'export', bench, '--to', 'qualtrics-qsf', '-o', 's.qsf'], dir);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /s\.qsf exists \(pass --force/);
  const forced = await cli(
    ['survey', 'export', bench, '--to', 'qualtrics-qsf', '-o', 's.qsf', '--force'],
    dir,
  );
  assert.equal(forced.code, 0, forced.stderr);
  assert.deepEqual(readFileSync(join(dir, 's.qsf')), before, 'the same input gives the same bytes');

  const frame = await cli(
    [
      'survey',
      'export',
      bench,
      '--to',
      'csv',
      '-o',
      'x.csv',
      '--question-form',
      'coherence',
      '--coherence-frame',
      'nope',
    ],
    dir,
  );
  assert.equal(frame.code, 2);
  assert.match(frame.stderr, /nope/);
  const onto = await cli(['survey', 'export', bench, '--to', 'csv', '-o', 'b.json', '--force'], dir);
  assert.equal(onto.code, 2);
  assert.deepEqual(JSON.parse(readFileSync(bench, 'utf8')), benchmarkDoc(), 'the benchmark is untouched');

  const doc = benchmarkDoc();
  (doc.items as any[])[0].conclusions = ['q', 's'];
  const multi = write(dir, 'multi.json', doc);
  const refused = await cli(['survey', 'export', multi, '--to', 'csv', '-o', 'm.csv'], dir);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /survey\.support-needs-one-conclusion/);
  assert.throws(() => readFileSync(join(dir, 'm.csv.mapping.json')), /ENOENT/, 'nothing written');
});

test('round trip: export → answers in Qualtrics’ and Google Forms’ own CSV → import → the verdicts filled in', async () => {
  const dir = tempDir();
  const bench = write(dir, 'b.json', benchmarkDoc());
  const answers: Record<string, string[]> = { R_1: [GOOD, BAD, ABSTAIN], R_2: [BAD, BAD, GOOD] };
  const expected: Record<string, string[]> = { R_1: ['good', 'bad', 'abstain'], R_2: ['bad', 'bad', 'good'] };

  // Qualtrics: the response CSV's columns are the .qsf's DataExportTags, with Qualtrics' three header rows.
  assert.equal((await cli(['survey', 'export', bench, '--to', 'qualtrics-qsf', '-o', 's.qsf'], dir)).code, 0);
  const qsf = JSON.parse(readFileSync(join(dir, 's.qsf'), 'utf8'));
  const mc = qsf.SurveyElements.filter((e: any) => e.Payload?.QuestionType === 'MC').map(
    (e: any) => e.Payload,
  );
  const header = ['StartDate', 'Finished', 'ResponseId', 'expertise', ...mc.map((q: any) => q.DataExportTag)];
  const lines = [
    csvLine(header),
    csvLine(header.map((h) => (h === 'ResponseId' ? 'Response ID' : `${h} text`))),
    csvLine(header.map((h) => `{"ImportId":"${h}"}`)),
    ...Object.entries(answers).map(([id, a]) => csvLine(['2026-01-01 10:00:00', 'True', id, 'nurse', ...a])),
  ];
  write(dir, 'qualtrics.csv', `${lines.join('\r\n')}\r\n`);
  const q = await cli(
    [
      'survey',
      'import',
      'b.json',
      'qualtrics.csv',
      '--from',
      'qualtrics-csv',
      '--mapping',
      's.qsf.mapping.json',
      '-o',
      'bq.json',
    ],
    dir,
  );
  assert.equal(q.code, 0, q.stderr);
  checkAnalysts(JSON.parse(readFileSync(join(dir, 'bq.json'), 'utf8')), expected);

  // Google Forms: the Sheet's columns are the titles the script gave the questions.
  assert.equal(
    (await cli(['survey', 'export', bench, '--to', 'google-forms-gas', '-o', 's.gs'], dir)).code,
    0,
  );
  const { calls } = runScript(readFileSync(join(dir, 's.gs'), 'utf8'));
  const titles = calls.filter((c) => c.method === 'setTitle' && c.item !== 'page').map((c) => String(c.arg));
  const gHeader = ['Timestamp', ...titles];
  const gLines = [
    csvLine(gHeader),
    ...Object.values(answers).map((a) =>
      csvLine(['2026/01/01 10:00:00', 'nurse', ...a.flatMap((v) => [v, 'because'])]),
    ),
  ];
  write(dir, 'google.csv', `${gLines.join('\n')}\n`);
  const g = await cli(
    [
      'survey',
      'import',
      'b.json',
      'google.csv',
      '--from',
      'google-forms-csv',
      '--mapping',
      's.gs.mapping.json',
      '-o',
      'bg.json',
    ],
    dir,
  );
  assert.equal(g.code, 0, g.stderr);
  const imported = JSON.parse(readFileSync(join(dir, 'bg.json'), 'utf8'));
  checkAnalysts(imported, { row2: expected.R_1, row3: expected.R_2 });
  assert.equal(imported.items[0].analyst_rationales.at(-1), 'because');
});

function checkAnalysts(doc: any, expected: Record<string, string[]>): void {
  const ids: string[] = doc.analysts.map((a: any) => a.id);
  for (const [response, verdicts] of Object.entries(expected)) {
    const column = ids.findIndex((id) => id.endsWith(response));
    assert.ok(column > 0, `an analyst for ${response} in ${ids.join(', ')}`);
    assert.deepEqual(
      doc.items.map((i: any) => i.analyst_verdicts[column]),
      verdicts,
      response,
    );
  }
}

test('the examples in examples/survey are what survey export writes today', async () => {
  const dir = tempDir();
  const bench = join(projectRoot, 'examples/infereval/benchmark.json');
  const runs: [string, string[]][] = [
    ['ferry.qsf', ['--to', 'qualtrics-qsf', '--title', 'Ferry and lawn: analyst survey']],
    [
      'ferry.gs',
      [
        '--to',
        'google-forms-gas',
        '--question-form',
        'coherence',
        '--coherence-frame',
        'defeasible-coherence-explicit-v1',
      ],
    ],
    ['ferry-items.csv', ['--to', 'csv', '--no-include-rationales']],
  ];
  for (const [name, args] of runs) {
    const r = await cli(['survey', 'export', bench, ...args, '-o', join(dir, name)]);
    assert.equal(r.code, 0, r.stderr);
    for (const file of [name, `${name}.mapping.json`])
      assert.equal(
        readFileSync(join(dir, file), 'utf8'),
        readFileSync(join(projectRoot, 'examples/survey', file), 'utf8'),
        `examples/survey/${file} is stale: run the export again`,
      );
  }
  // The hand-written Qualtrics responses example answers the survey in ferry.qsf: the same sidecar.
  assert.equal(
    readFileSync(join(projectRoot, 'examples/survey/ferry.qsf.mapping.json'), 'utf8'),
    readFileSync(join(projectRoot, 'examples/survey/ferry.qualtrics-responses.csv.mapping.json'), 'utf8'),
  );
});
