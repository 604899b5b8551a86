// The sidecar contract end to end: `survey export` writes `<export>.mapping.json` with the lead's writer
// (src/survey/mapping.ts); `survey import` finds the items through it. Until the exporters land, the filled
// responses are written here by hand from the sidecar rows, in the column shapes each platform exports.
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { mappingSidecarPath, parseMapping, writeMappingSidecar } from '../../src/survey/mapping.js';
import { importSurvey } from '../../src/survey/import/index.js';
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
