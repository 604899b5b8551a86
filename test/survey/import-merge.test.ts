// mergeRespondents and the frame guard: analyst columns, rationales, stable re-import, replace, partial, panels.
// Expected columns are written out by hand from the respondents below.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { EvalkitError } from '../../src/errors.js';
import { benchmarkHash } from '../../src/formats/infereval/hash.js';
import { parseInfereval } from '../../src/validate/infereval.js';
import type { Verdict } from '../../src/formats/infereval/types.js';
import { parseMapping } from '../../src/survey/mapping.js';
import { checkSurveyFrame, mergeRespondents } from '../../src/survey/merge.js';
import type { SurveyRespondent } from '../../src/survey/respondent.js';
import { benchmarkDoc, sidecarRows } from './import-fixture.js';

const respondent = (
  id: string,
  verdicts: Record<string, Verdict>,
  extra: Partial<SurveyRespondent> = {},
): SurveyRespondent => ({
  responseId: id,
  startedAt: null,
  finished: true,
  expertise: null,
  verdicts: new Map(Object.entries(verdicts)),
  rationales: new Map(),
  origin: `test ${id}`,
  ...extra,
});

const load = (doc: Record<string, unknown>) => parseInfereval(doc, 'benchmark', 'test');
const throwsCode = (fn: () => unknown, code: string, message?: RegExp): void => {
  assert.throws(fn, (e: EvalkitError) => {
    assert.equal(e.code, code, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
};

const alice = respondent('A1', { c1: 'good', c2: 'good', 'odd-id': 'bad' }, { expertise: 'Gardener' });
const bob = respondent('B2', { c1: 'bad', c2: 'abstain', 'odd-id': 'good' });

describe('mergeRespondents', () => {
  const doc = benchmarkDoc();
  const bench = load(doc);

  it('adds one analyst per respondent and one verdict per item, keeping the rest of the document', () => {
    const out = mergeRespondents(doc, bench, [alice, bob]);
    const d = out.document as any;
    assert.deepEqual(d.analysts, [
      { id: 'seed', display_name: 'Seed analyst' },
      { id: 'clinician-A1', expertise_description: 'Gardener' },
      { id: 'clinician-B2' },
    ]);
    assert.deepEqual(
      d.items.map((i: any) => i.analyst_verdicts),
      [
        ['good', 'good', 'bad'],
        ['bad', 'good', 'abstain'],
        ['abstain', 'bad', 'good'],
      ],
    );
    // no rationale written: c2's list grows by "" entries, null and absent lists stay as they were
    assert.deepEqual(d.items[1].analyst_rationales, ['covered grass stays dry', '', '']);
    assert.equal(d.items[2].analyst_rationales, null);
    assert.equal('analyst_rationales' in d.items[0], false);
    assert.equal(d.bearers.p.expression, 'it rained overnight');
    assert.equal(d.id, 'survey-import-test');
    // the input document is not touched
    assert.equal((doc.analysts as unknown[]).length, 1);
    load(out.document); // valid
    assert.deepEqual(
      out.added.map((a) => [a.analystId, a.answered, a.filledAbstain]),
      [
        ['clinician-A1', 3, 0],
        ['clinician-B2', 3, 0],
      ],
    );
  });

  it('turns null rationale lists into lists when a respondent wrote one', () => {
    const withWhy = respondent(
      'C3',
      { c1: 'good', c2: 'bad', 'odd-id': 'bad' },
      { rationales: new Map([['odd-id', 'covered']]) },
    );
    const d = mergeRespondents(doc, bench, [alice, withWhy]).document as any;
    assert.deepEqual(
      d.items.map((i: any) => i.analyst_rationales),
      [
        ['', '', ''],
        ['covered grass stays dry', '', ''],
        ['', '', 'covered'],
      ],
    );
    load(d);
  });

  it('uses the analyst id prefix given', () => {
    const d = mergeRespondents(doc, bench, [bob], { analystIdPrefix: 'panel-b/' }).document as any;
    assert.equal(d.analysts[1].id, 'panel-b/B2');
  });

  it('re-importing the same responses into the output changes nothing: they are skipped as unchanged', () => {
    const first = mergeRespondents(doc, bench, [alice]);
    const again = mergeRespondents(first.document, load(first.document), [alice, bob]);
    assert.deepEqual(
      again.unchanged.map((a) => a.analystId),
      ['clinician-A1'],
    );
    assert.deepEqual(
      again.added.map((a) => a.analystId),
      ['clinician-B2'],
    );
    assert.equal((again.document as any).analysts.length, 3);
    const same = mergeRespondents(first.document, load(first.document), [alice]);
    assert.deepEqual(same.document, first.document);
    assert.equal(benchmarkHash(load(same.document) as any), benchmarkHash(load(first.document) as any));
  });

  it('refuses an analyst already present with other answers, and replaces it in place with replace', () => {
    const first = mergeRespondents(doc, bench, [alice, bob]);
    const changed = respondent('A1', { c1: 'bad', c2: 'good', 'odd-id': 'bad' }, { expertise: 'Gardener' });
    throwsCode(
      () => mergeRespondents(first.document, load(first.document), [changed]),
      'survey.analyst-exists',
      /"clinician-A1"/,
    );
    const out = mergeRespondents(first.document, load(first.document), [changed], { replace: true });
    const d = out.document as any;
    assert.deepEqual(
      out.replaced.map((a) => a.analystId),
      ['clinician-A1'],
    );
    assert.deepEqual(
      d.analysts.map((a: any) => a.id),
      ['seed', 'clinician-A1', 'clinician-B2'],
    );
    assert.deepEqual(d.items[0].analyst_verdicts, ['good', 'bad', 'bad']);
  });

  it('refuses incomplete respondents by default and fills ABSTAIN when allowed', () => {
    const partial = respondent('P', { c2: 'good' }, { finished: false });
    const skipped = respondent('S', { c1: 'good', c2: 'good' });
    throwsCode(
      () => mergeRespondents(doc, bench, [partial, skipped]),
      'survey.incomplete',
      /2 incomplete respondent\(s\): "P" \(test P\) did not finish the survey; "S" \(test S\) gave no verdict on 1 item\(s\): "odd-id"/,
    );
    const d = mergeRespondents(doc, bench, [partial], { requireComplete: false }).document as any;
    assert.deepEqual(
      d.items.map((i: any) => i.analyst_verdicts[1]),
      ['abstain', 'good', 'abstain'],
    );
  });

  it('refuses the same response id twice', () => {
    throwsCode(
      () => mergeRespondents(doc, bench, [alice, alice]),
      'survey.duplicate-response',
      /"A1" appears twice/,
    );
  });

  it('needs a panel when the analysts declare panels, and refuses one when they do not', () => {
    const paneled = benchmarkDoc();
    (paneled.analysts as any[])[0].panel = 'experts';
    throwsCode(() => mergeRespondents(paneled, load(paneled), [alice]), 'survey.panel-needed');
    const d = mergeRespondents(paneled, load(paneled), [alice], { panel: 'survey' }).document as any;
    assert.equal(d.analysts[1].panel, 'survey');
    load(d);
    throwsCode(() => mergeRespondents(doc, bench, [alice], { panel: 'survey' }), 'survey.panel-unused');
  });
});

describe('checkSurveyFrame', () => {
  const rows = (form: 'support' | 'coherence', frame: string | null) =>
    parseMapping(sidecarRows(form, frame), 's.json');

  it('returns the recorded frame and form, and passes a matching declaration', () => {
    assert.deepEqual(
      checkSurveyFrame(rows('coherence', 'thin-v1'), { frameId: 'thin-v1', questionForm: 'coherence' }),
      {
        frameId: 'thin-v1',
        questionForm: 'coherence',
      },
    );
    assert.deepEqual(checkSurveyFrame(null, { frameId: 'anything' }), { frameId: null, questionForm: null });
    assert.deepEqual(checkSurveyFrame(rows('support', null), { frameId: 'x' }), {
      frameId: null,
      questionForm: 'support',
    });
  });

  it('refuses a declared frame other than the recorded one, naming both', () => {
    throwsCode(
      () =>
        checkSurveyFrame(
          rows('coherence', 'thin-v1'),
          { frameId: 'defeasible-coherence-explicit-v1' },
          's.json',
        ),
      'survey.frame-mismatch',
      /exported under frame "thin-v1" \(s\.json\) but the import declares frame "defeasible-coherence-explicit-v1"/,
    );
  });

  it('refuses a declared question form other than the recorded one', () => {
    throwsCode(
      () => checkSurveyFrame(rows('coherence', 'thin-v1'), { questionForm: 'support' }),
      'survey.form-mismatch',
      /asked the coherence question/,
    );
  });

  it('refuses a sidecar whose rows disagree on frame or form', () => {
    const mixed = rows('coherence', 'thin-v1');
    mixed[1] = { ...mixed[1], frame_id: 'defeasible-coherence-underdet-v1' };
    throwsCode(() => checkSurveyFrame(mixed, {}), 'survey.frame-mismatch', /records 2 frames/);
    const forms = rows('support', null);
    forms[0] = { ...forms[0], question_form: 'coherence' };
    throwsCode(() => checkSurveyFrame(forms, {}), 'survey.form-mismatch', /both question forms/);
  });
});
