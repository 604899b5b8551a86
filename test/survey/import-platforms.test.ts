// Each platform's export read through importSurvey: header rows, finished / partial, the respondent filter,
// unknown choice text and missing columns. Verdicts checked against the cells written by hand below.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { EvalkitError } from '../../src/errors.js';
import { importSurvey, type SurveyImportOptions } from '../../src/survey/import/index.js';
import {
  ABSTAIN,
  BAD,
  benchmarkDoc,
  csvLine,
  GOOD,
  INCOHERENT,
  COHERENT,
  UNCLEAR,
  ODD_TAG,
  qualtricsCsv,
  sidecarRows,
  tempDir,
  write,
} from './import-fixture.js';

const dir = tempDir();
const benchmark = write(dir, 'bench.json', benchmarkDoc());

/** The verdict column of the last analyst, item by item. */
const lastColumn = (doc: { items: { analyst_verdicts: string[] }[] }, back = 1): string[] =>
  doc.items.map((i) => i.analyst_verdicts[i.analyst_verdicts.length - back]);

const run = (o: Partial<SurveyImportOptions> & Pick<SurveyImportOptions, 'responses' | 'from'>) =>
  importSurvey({ benchmark, ...o });

const rejects = async (p: Promise<unknown>, code: string, message: RegExp): Promise<void> => {
  await assert.rejects(p, (e: EvalkitError) => {
    assert.equal(e.code, code, e.message);
    assert.match(e.message, message);
    return true;
  });
};

describe('qualtrics-csv', () => {
  const full = [
    ['R_a', 'True', 'Hydrologist', GOOD, 'rain wets grass', BAD, '', ABSTAIN, ''],
    ['R_b', 'True', '', BAD, '', GOOD, 'tarp leaks', GOOD, 'holes'],
  ];

  it('reads the three header rows, tags (the hashed one too), verdicts, rationales and expertise', async () => {
    const responses = write(dir, 'q3.csv', qualtricsCsv(full));
    const r = await run({ responses, from: 'qualtrics-csv' });
    const doc = JSON.parse(r.text);
    assert.deepEqual(
      doc.analysts.map((a: { id: string }) => a.id),
      ['seed', 'clinician-R_a', 'clinician-R_b'],
    );
    assert.equal(doc.analysts[1].expertise_description, 'Hydrologist');
    assert.equal(doc.analysts[2].expertise_description, undefined);
    assert.deepEqual(lastColumn(doc, 2), ['good', 'bad', 'abstain']);
    assert.deepEqual(lastColumn(doc), ['bad', 'good', 'good']);
    // rationales: every item gets a list, "" where none was written; the seed's c2 rationale is kept
    assert.deepEqual(
      doc.items.map((i: { analyst_rationales: string[] }) => i.analyst_rationales),
      [
        ['', 'rain wets grass', ''],
        ['covered grass stays dry', '', 'tarp leaks'],
        ['', '', 'holes'],
      ],
    );
    assert.equal(r.summary.mapping, null);
    assert.deepEqual(r.summary.ignored_columns, []);
  });

  it('recognises header rows by content (the "{...}" third row of the reference tests)', async () => {
    const text = [
      'ResponseId,StartDate,Finished,expertise,c1,c2,' + ODD_TAG,
      'Response ID,Start Date,Finished,expertise,Verdict,Verdict,Verdict',
      '{...},{...},{...},{...},{...},{...},{...}',
      `R_1,2026-01-01 00:00:00,True,pulmonologist,${INCOHERENT},${COHERENT},${UNCLEAR}`,
    ].join('\n');
    const responses = write(dir, 'ref-shape.csv', text);
    const r = await run({ responses, from: 'qualtrics-csv', questionForm: 'coherence' });
    assert.deepEqual(lastColumn(JSON.parse(r.text)), ['good', 'bad', 'abstain']);
    assert.equal(r.summary.respondents_read, 1);
  });

  it('reads a file with a byte-order mark and CRLF line ends, as Qualtrics writes it', async () => {
    const responses = write(dir, 'bom.csv', `\uFEFF${qualtricsCsv(full)}`);
    const r = await run({ responses, from: 'qualtrics-csv' });
    assert.deepEqual(lastColumn(JSON.parse(r.text)), ['bad', 'good', 'good']);
  });

  it('recognises an older export with two header rows', async () => {
    const responses = write(dir, 'q2.csv', qualtricsCsv(full, 2));
    const r = await run({ responses, from: 'qualtrics-csv' });
    assert.equal(r.summary.respondents_read, 2);
  });

  it('refuses an unfinished respondent unless partial imports are allowed, then fills ABSTAIN', async () => {
    const responses = write(
      dir,
      'partial.csv',
      qualtricsCsv([...full, ['R_c', 'False', '', BAD, '', '', '', '', '']]),
    );
    await rejects(
      run({ responses, from: 'qualtrics-csv' }),
      'survey.incomplete',
      /"R_c" \(.*partial\.csv:8\) did not finish/,
    );
    const r = await run({ responses, from: 'qualtrics-csv', requireComplete: false });
    assert.deepEqual(lastColumn(JSON.parse(r.text)), ['bad', 'abstain', 'abstain']);
    assert.equal(r.summary.added[2].filledAbstain, 2);
    assert.equal(r.summary.added[2].finished, false);
  });

  it('refuses a finished respondent who skipped an item, naming it', async () => {
    const responses = write(
      dir,
      'skipped.csv',
      qualtricsCsv([['R_d', 'True', '', GOOD, '', GOOD, '', '', '']]),
    );
    await rejects(
      run({ responses, from: 'qualtrics-csv' }),
      'survey.incomplete',
      /gave no verdict on 1 item\(s\): "odd-id"/,
    );
  });

  it('imports only the selected respondent and says why the others were skipped', async () => {
    const responses = write(dir, 'q-filter.csv', qualtricsCsv(full));
    const r = await run({ responses, from: 'qualtrics-csv', respondent: 'R_b' });
    assert.deepEqual(
      r.summary.added.map((a) => a.analystId),
      ['clinician-R_b'],
    );
    assert.deepEqual(r.summary.skipped, [{ response_id: 'R_a', reason: 'not-selected' }]);
    await rejects(
      run({ responses, from: 'qualtrics-csv', respondent: 'R_zz' }),
      'survey.no-such-respondent',
      /R_a, R_b/,
    );
  });

  it('names file, line, respondent and column of an unknown choice', async () => {
    const responses = write(
      dir,
      'unknown.csv',
      qualtricsCsv([['R_e', 'True', '', GOOD, '', 'Perhaps', '', GOOD, '']]),
    );
    await rejects(
      run({ responses, from: 'qualtrics-csv' }),
      'survey.unknown-choice',
      /unknown\.csv:6: respondent "R_e", column "c2": unrecognised choice "Perhaps"/,
    );
  });

  it('decodes the coherence choices with the inversion when the sidecar says coherence', async () => {
    const responses = write(
      dir,
      'coh.csv',
      qualtricsCsv([['R_f', 'True', '', INCOHERENT, '', COHERENT, '', UNCLEAR, '']]),
    );
    write(dir, 'coh.csv.mapping.json', sidecarRows('coherence'));
    const r = await run({ responses, from: 'qualtrics-csv' });
    assert.deepEqual(lastColumn(JSON.parse(r.text)), ['good', 'bad', 'abstain']);
    assert.equal(r.summary.question_form, 'coherence');
    assert.equal(r.summary.frame_id, 'thin-v1');
    assert.match(r.summary.mapping!, /coh\.csv\.mapping\.json$/);
  });

  it('reports a missing item column, a missing ResponseId column, and lists unknown columns', async () => {
    // header rows: line 1, lines 2-4 (a question text with two line breaks), line 5; data from line 6
    const missing = write(
      dir,
      'missing.csv',
      'ResponseId,Finished,c1,c2,other\r\nR_1,True,Good,Bad,Good\r\n',
    );
    await rejects(
      run({ responses: missing, from: 'qualtrics-csv' }),
      'survey.missing-column',
      new RegExp(
        `missing\\.csv:1: no verdict column for 1 item\\(s\\): item "odd-id" \\(column "${ODD_TAG}"\\)`,
      ),
    );
    const noId = write(dir, 'noid.csv', 'StartDate,Finished,c1\r\nx,True,Good\r\n');
    await rejects(
      run({ responses: noId, from: 'qualtrics-csv' }),
      'survey.missing-column',
      /noid\.csv:1: no "ResponseId" column/,
    );
    const extra = write(
      dir,
      'extra.csv',
      `Q_RecaptchaScore,ResponseId,Finished,EndDate,c1,c2,${ODD_TAG}\r\n0.9,R_1,True,x,Good,Bad,Abstain\r\n`,
    );
    const r = await run({ responses: extra, from: 'qualtrics-csv' });
    assert.deepEqual(r.summary.ignored_columns, ['Q_RecaptchaScore']);
    assert.deepEqual(lastColumn(JSON.parse(r.text)), ['good', 'bad', 'abstain']);
  });
});

describe('google-forms-csv', () => {
  const header = [
    'Timestamp',
    'Briefly describe your expertise',
    'Item 1 verdict',
    'Item 1 rationale (optional)',
    'Item 2 verdict',
    'Item 2 rationale (optional)',
    'Item 3 verdict',
    'Item 3 rationale (optional)',
  ];
  const text = [
    csvLine(header),
    csvLine(['11/1/2026 10:00:00', 'Soil scientist', GOOD, '', GOOD, 'rain gets in', BAD, '']),
    csvLine(['11/1/2026 11:30:00', '', ABSTAIN, 'unsure\nreally', BAD, '', BAD, '']),
  ].join('\n');

  it('resolves "Item N verdict" through the sidecar and names respondents row<N>', async () => {
    const responses = write(dir, 'gf.csv', text);
    write(dir, 'gf.csv.mapping.json', sidecarRows());
    const r = await run({ responses, from: 'google-forms-csv' });
    const doc = JSON.parse(r.text);
    assert.deepEqual(
      doc.analysts.map((a: { id: string }) => a.id),
      ['seed', 'clinician-row2', 'clinician-row3'],
    );
    assert.equal(doc.analysts[1].expertise_description, 'Soil scientist');
    assert.deepEqual(lastColumn(doc, 2), ['good', 'good', 'bad']);
    assert.deepEqual(lastColumn(doc), ['abstain', 'bad', 'bad']);
    assert.deepEqual(doc.items[0].analyst_rationales, ['', '', 'unsure\nreally']);
    assert.equal(r.summary.frame_id, 'default-v1');
  });

  it('follows the sidecar order, not the benchmark order', async () => {
    const rows = sidecarRows();
    const responses = write(dir, 'gf-rev.csv', text);
    write(dir, 'gf-rev.csv.mapping.json', [rows[2], rows[0], rows[1]]);
    const r = await run({ responses, from: 'google-forms-csv' });
    // Item 1 = odd-id, Item 2 = c1, Item 3 = c2; the column is in benchmark order c1, c2, odd-id
    assert.deepEqual(lastColumn(JSON.parse(r.text), 2), ['good', 'bad', 'good']);
  });

  it('reads the older "[item:tag]" titles', async () => {
    const legacy = [
      csvLine([
        'Timestamp',
        'Expertise',
        'Item 1 of 3 [item:c1]',
        '[item:c1_rationale] Optional',
        'Item 2 of 3 [item:c2]',
        `[item:${ODD_TAG}] Item 3`,
      ]),
      csvLine(['x', '', BAD, 'why not', GOOD, ABSTAIN]),
    ].join('\n');
    const responses = write(dir, 'gf-legacy.csv', legacy);
    // without a sidecar "Item N of M" means the benchmark's Nth item, which agrees with the tags here
    const r = await run({ responses, from: 'google-forms-csv' });
    assert.deepEqual(lastColumn(JSON.parse(r.text)), ['bad', 'good', 'abstain']);
  });

  it('refuses an "Item N" beyond the survey, and a missing item', async () => {
    const responses = write(
      dir,
      'gf-bad.csv',
      [csvLine([...header, 'Item 4 verdict']), csvLine(['x'])].join('\n'),
    );
    await rejects(
      run({ responses, from: 'google-forms-csv' }),
      'survey.unknown-column',
      /"Item 4 verdict" names item 4, but the survey has 3 items/,
    );
    const short = write(dir, 'gf-short.csv', [csvLine(header.slice(0, 6)), csvLine(['x'])].join('\n'));
    await rejects(
      run({ responses: short, from: 'google-forms-csv' }),
      'survey.missing-column',
      /item "odd-id" \(column "Item 3 verdict"\)/,
    );
  });
});

describe('surveymonkey-csv', () => {
  const header = [
    'Respondent ID',
    'Collector ID',
    'Start Date',
    'End Date',
    'IP Address',
    'Briefly describe your expertise',
    'Item 1 verdict',
    'Item 1 rationale (optional)',
    'Item 2 verdict',
    'Item 2 rationale (optional)',
    'Item 3 verdict',
    'Item 3 rationale (optional)',
  ];
  const sub = [
    '',
    '',
    '',
    '',
    '',
    'Open-Ended Response',
    'Response',
    'Open-Ended Response',
    'Response',
    'Open-Ended Response',
    'Response',
    'Open-Ended Response',
  ];
  const rows = [
    [
      '114000001',
      '431',
      '11/01/2026 09:15:32 AM',
      '11/01/2026 09:42:11 AM',
      '',
      'Agronomist',
      BAD,
      '',
      GOOD,
      '',
      GOOD,
      'wet anyway',
    ],
    [
      '114000002',
      '431',
      '11/02/2026 10:02:14 AM',
      '11/02/2026 10:30:45 AM',
      '',
      '',
      GOOD,
      '',
      ABSTAIN,
      '',
      BAD,
      '',
    ],
  ];

  it('skips the sub-header row (blank Respondent ID) and uses the respondent ids', async () => {
    const responses = write(dir, 'sm.csv', [header, sub, ...rows].map(csvLine).join('\r\n'));
    write(dir, 'sm.csv.mapping.json', sidecarRows());
    const r = await run({ responses, from: 'surveymonkey-csv' });
    const doc = JSON.parse(r.text);
    assert.deepEqual(
      doc.analysts.map((a: { id: string }) => a.id),
      ['seed', 'clinician-114000001', 'clinician-114000002'],
    );
    assert.deepEqual(lastColumn(doc, 2), ['bad', 'good', 'good']);
    assert.deepEqual(lastColumn(doc), ['good', 'abstain', 'bad']);
    assert.equal(doc.analysts[1].expertise_description, 'Agronomist');
    assert.deepEqual(doc.items[2].analyst_rationales, ['', 'wet anyway', '']);
  });

  it('also reads an export without the sub-header row', async () => {
    const responses = write(dir, 'sm1.csv', [header, ...rows].map(csvLine).join('\n'));
    const r = await run({ responses, from: 'surveymonkey-csv' });
    assert.equal(r.summary.respondents_read, 2);
  });

  it('refuses a data row without a respondent id, and a file without the column', async () => {
    const responses = write(
      dir,
      'sm-blank.csv',
      [header, sub, ['', ...rows[0].slice(1)]].map(csvLine).join('\n'),
    );
    await rejects(
      run({ responses, from: 'surveymonkey-csv' }),
      'survey.bad-cell',
      /sm-blank\.csv:3: column "Respondent ID" is blank/,
    );
    const noId = write(dir, 'sm-noid.csv', [header.slice(1), rows[0].slice(1)].map(csvLine).join('\n'));
    await rejects(
      run({ responses: noId, from: 'surveymonkey-csv' }),
      'survey.missing-column',
      /no "Respondent ID" column/,
    );
  });
});
