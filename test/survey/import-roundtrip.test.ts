// The sidecar contract end to end: `survey export` writes `<export>.mapping.json` with the lead's writer
// (src/survey/mapping.ts); `survey import` finds the items through it. First with sidecars written here, then the
// true round trip through the exporter's items sheet (the Qualtrics and Google Forms round trips are in
// export.test.ts): a SurveyMonkey survey built from the sheet, answered, read back as its CSV and through its API.
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { mappingSidecarPath, parseMapping, writeMappingSidecar } from '../../src/survey/mapping.js';
import { parseInfereval } from '../../src/validate/infereval.js';
import { parseCsv } from '../../src/io/csv-reader.js';
import { exportSurvey } from '../../src/survey/export/index.js';
import { importSurvey } from '../../src/survey/import/index.js';
import { startSurveyMonkeyServer } from '../helpers/surveymonkey-server.js';
import {
  ABSTAIN,
  BAD,
  benchmarkDoc,
  csvLine,
  GOOD,
  INCOHERENT,
  COHERENT,
  UNCLEAR,
  sidecarRows,
  tempDir,
  write,
} from './import-fixture.js';

describe('sidecar written by writeMappingSidecar → responses → importSurvey', () => {
  const dir = tempDir();
  const benchmark = write(dir, 'bench.json', benchmarkDoc());

  it('qualtrics: columns named by the sidecar tags (the hashed one too), coherence decoded with the inversion', async () => {
    const exported = join(dir, 'survey.qsf');
    const rows = parseMapping(sidecarRows('coherence', 'defeasible-coherence-explicit-v1'), 'rows');
    const sidecar = await writeMappingSidecar(exported, rows);
    assert.equal(sidecar, mappingSidecarPath(exported));
    const header = [
      'ResponseId',
      'Finished',
      ...rows.flatMap((r) => [r.verdict_data_export_tag, r.rationale_data_export_tag!]),
    ];
    const answers = [INCOHERENT, 'because', COHERENT, '', UNCLEAR, ''];
    const responses = write(
      dir,
      'qualtrics.csv',
      [csvLine(header), csvLine(['R_9', 'True', ...answers])].join('\r\n'),
    );
    const r = await importSurvey({
      benchmark,
      responses,
      from: 'qualtrics-csv',
      mapping: sidecar,
      coherenceFrame: 'defeasible-coherence-explicit-v1',
    });
    const doc = JSON.parse(r.text);
    assert.deepEqual(
      doc.items.map((i: { analyst_verdicts: string[] }) => i.analyst_verdicts[1]),
      ['good', 'bad', 'abstain'],
    );
    assert.deepEqual(doc.items[0].analyst_rationales, ['', 'because']);
    assert.deepEqual(
      [r.summary.question_form, r.summary.frame_id],
      ['coherence', 'defeasible-coherence-explicit-v1'],
    );
    await assert.rejects(
      importSurvey({
        benchmark,
        responses,
        from: 'qualtrics-csv',
        mapping: sidecar,
        coherenceFrame: 'thin-v1',
      }),
      (e: Error & { code?: string }) =>
        e.code === 'survey.frame-mismatch' &&
        /exported under frame "defeasible-coherence-explicit-v1"/.test(e.message),
    );
  });

  it('google forms: "Item N verdict" is the Nth sidecar row, whatever the benchmark order', async () => {
    const exported = join(dir, 'form.gs');
    const base = parseMapping(sidecarRows(), 'rows');
    const rows = [base[1], base[2], base[0]]; // exported as c2, odd-id, c1
    const sidecar = await writeMappingSidecar(exported, rows);
    const header = ['Timestamp', 'Expertise', 'Item 1 verdict', 'Item 2 verdict', 'Item 3 verdict'];
    const responses = write(
      dir,
      'form.csv',
      [csvLine(header), csvLine(['t', 'me', BAD, ABSTAIN, GOOD])].join('\n'),
    );
    const r = await importSurvey({ benchmark, responses, from: 'google-forms-csv', mapping: sidecar });
    const doc = JSON.parse(r.text);
    // benchmark order c1, c2, odd-id
    assert.deepEqual(
      doc.items.map((i: { analyst_verdicts: string[] }) => i.analyst_verdicts[1]),
      ['good', 'bad', 'abstain'],
    );
    assert.equal(doc.analysts[1].expertise_description, 'me');
  });
});

describe('true round trip: survey export (csv sheet) → a SurveyMonkey survey built from it → answers → import', () => {
  const dir = tempDir();
  const doc = benchmarkDoc();
  const benchmark = write(dir, 'b.json', doc);
  // The coherence question under an anchored frame; the sheet gives each question's title and its choices.
  const exported = exportSurvey(parseInfereval(doc, 'benchmark'), {
    to: 'csv',
    questionForm: 'coherence',
    coherenceFrame: 'defeasible-coherence-explicit-v1',
  });
  const [head, ...rows] = parseCsv(exported.text, 'sheet.csv').map((r) => r.fields);
  const col = (name: string): number => head.indexOf(name);
  const sheet = rows.map((r) => ({
    verdictTitle: r[col('verdict_title')],
    rationaleTitle: r[col('rationale_title')],
    choices: [r[col('choice_1')], r[col('choice_2')], r[col('choice_3')]],
  }));
  /** Per item (benchmark order c1, c2, odd-id), the answer chosen by its first word, and the verdict it means. */
  const picks = ['Incoherent', 'Coherent', 'Unclear'];
  const expected = ['good', 'bad', 'abstain'];
  const choiceOf = (n: number): string => sheet[n].choices.find((c) => c.split(' ')[0] === picks[n])!;

  it('the sheet asks the coherence question under the frame, with the three choices', () => {
    assert.deepEqual(
      sheet.map((s) => s.verdictTitle),
      ['Item 1 verdict', 'Item 2 verdict', 'Item 3 verdict'],
    );
    assert.ok(sheet.every((s) => picks.every((p) => s.choices.some((c) => c.split(' ')[0] === p))));
    assert.deepEqual(
      [...new Set(exported.mapping.map((m) => [m.question_form, m.frame_id].join(' ')))],
      ['coherence defeasible-coherence-explicit-v1'],
    );
  });

  it('SurveyMonkey CSV export of the answers imports to the verdicts chosen', async () => {
    const sidecar = await writeMappingSidecar(join(dir, 'sheet.csv'), exported.mapping);
    const header = [
      'Respondent ID',
      'Collector ID',
      'Start Date',
      'Expertise',
      ...sheet.flatMap((s) => [s.verdictTitle, s.rationaleTitle]),
    ];
    const sub = [
      '',
      '',
      '',
      'Open-Ended Response',
      ...sheet.flatMap(() => ['Response', 'Open-Ended Response']),
    ];
    const answer = [
      '5001',
      '77',
      '11/01/2026 09:00:00 AM',
      'logician',
      ...sheet.flatMap((_, n) => [choiceOf(n), n === 1 ? 'holds together' : '']),
    ];
    const responses = write(dir, 'sm.csv', [header, sub, answer].map(csvLine).join('\r\n'));
    const r = await importSurvey({
      benchmark,
      responses,
      from: 'surveymonkey-csv',
      mapping: sidecar,
      coherenceFrame: 'defeasible-coherence-explicit-v1',
    });
    const out = JSON.parse(r.text);
    assert.deepEqual(
      out.items.map((i: { analyst_verdicts: string[] }) => i.analyst_verdicts[1]),
      expected,
    );
    assert.equal(out.items[1].analyst_rationales[1], 'holds together');
    assert.equal(r.summary.question_form, 'coherence');
    await assert.rejects(
      importSurvey({
        benchmark,
        responses,
        from: 'surveymonkey-csv',
        mapping: sidecar,
        coherenceFrame: 'thin-v1',
      }),
      (e: Error & { code?: string }) => e.code === 'survey.frame-mismatch',
    );
  });

  it('the same survey read through the SurveyMonkey API imports to the same verdicts', async () => {
    const sidecar = await writeMappingSidecar(join(dir, 'api.csv'), exported.mapping);
    const details = {
      id: '88',
      title: 'built from the sheet',
      pages: [
        { id: 'p0', questions: [{ id: 'e', family: 'open_ended', headings: [{ heading: 'Expertise' }] }] },
        ...sheet.map((s, n) => ({
          id: `p${n + 1}`,
          questions: [
            {
              id: `v${n}`,
              family: 'single_choice',
              headings: [{ heading: s.verdictTitle }],
              answers: { choices: s.choices.map((text, k) => ({ id: `c${n}${k}`, text })) },
            },
            { id: `r${n}`, family: 'open_ended', headings: [{ heading: s.rationaleTitle }] },
          ],
        })),
      ],
    };
    const response = {
      id: '5001',
      response_status: 'completed',
      date_created: '2026-11-01T09:00:00+00:00',
      pages: sheet.map((s, n) => ({
        id: `p${n + 1}`,
        questions: [{ id: `v${n}`, answers: [{ choice_id: `c${n}${s.choices.indexOf(choiceOf(n))}` }] }],
      })),
    };
    const server = await startSurveyMonkeyServer({
      token: 'tok-123456789',
      surveyId: '88',
      details,
      responses: [response],
    });
    try {
      const r = await importSurvey({
        benchmark,
        responses: '88',
        from: 'surveymonkey-api',
        mapping: sidecar,
        surveyMonkey: { token: 'tok-123456789', baseUrl: server.baseUrl },
      });
      const out = JSON.parse(r.text);
      assert.deepEqual(
        out.analysts.map((a: { id: string }) => a.id),
        ['seed', 'clinician-5001'],
      );
      assert.deepEqual(
        out.items.map((i: { analyst_verdicts: string[] }) => i.analyst_verdicts[1]),
        expected,
      );
      assert.equal(r.summary.frame_id, 'defeasible-coherence-explicit-v1');
    } finally {
      await server.close();
    }
  });
});
