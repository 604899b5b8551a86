// A three-item benchmark for the survey import tests, and helpers to write it, sidecars and response files to a
// temporary folder. Item "odd-id" has a hyphen, so its column tag is hashed: item_40b69e7f (sha256("odd-id")[:8],
// computed with Python's hashlib).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ODD_TAG = 'item_40b69e7f';

export function benchmarkDoc(): Record<string, unknown> {
  return {
    schema_version: '1.0',
    id: 'survey-import-test',
    bearers: {
      p: { expression: 'it rained overnight' },
      q: { expression: 'the lawn is wet' },
      r: { expression: 'the lawn was covered' },
    },
    analysts: [{ id: 'seed', display_name: 'Seed analyst' }],
    items: [
      { id: 'c1', premises: ['p'], conclusions: ['q'], analyst_verdicts: ['good'] },
      {
        id: 'c2',
        premises: ['p', 'r'],
        conclusions: ['q'],
        analyst_verdicts: ['bad'],
        analyst_rationales: ['covered grass stays dry'],
      },
      {
        id: 'odd-id',
        premises: ['r'],
        conclusions: ['q'],
        analyst_verdicts: ['abstain'],
        analyst_rationales: null,
      },
    ],
  };
}

export const ITEM_IDS = ['c1', 'c2', 'odd-id'];

export function sidecarRows(
  form: 'support' | 'coherence' = 'support',
  frame: string | null = form === 'support' ? 'default-v1' : 'thin-v1',
): Record<string, unknown>[] {
  return [
    ['c1', 'c1', false],
    ['c2', 'c2', false],
    ['odd-id', ODD_TAG, true],
  ].map(([item, tag, hashed]) => ({
    item_id: item,
    verdict_data_export_tag: tag,
    rationale_data_export_tag: `${tag}_rationale`,
    was_hashed: hashed,
    question_form: form,
    frame_id: frame,
  }));
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'evalkit-survey-import-'));
}

export function write(dir: string, name: string, content: string | object): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
  return path;
}

export const GOOD = 'Good — follows from premises';
export const BAD = 'Bad — does not follow';
export const ABSTAIN = 'Abstain — cannot judge';
export const COHERENT = 'Coherent — the position can be held without conflict';
export const INCOHERENT = 'Incoherent — the position is untenable';
export const UNCLEAR = 'Unclear — cannot judge';

/** A CSV line from fields (quoted when needed, as RFC 4180 says). */
export const csvLine = (fields: string[]): string =>
  fields.map((f) => (/[",\r\n]/.test(f) ? `"${f.replace(/"/g, '""')}"` : f)).join(',');

/**
 * A Qualtrics export (three header rows) for the fixture benchmark; each response is
 * [ResponseId, Finished, expertise, c1, c1 rationale, c2, c2 rationale, odd, odd rationale].
 */
export function qualtricsCsv(responses: string[][], headerRows = 3): string {
  const names = [
    'StartDate',
    'Finished',
    'ResponseId',
    'expertise',
    'c1',
    'c1_rationale',
    'c2',
    'c2_rationale',
    ODD_TAG,
    `${ODD_TAG}_rationale`,
  ];
  const texts = [
    'Start Date',
    'Finished',
    'Response ID',
    'Your expertise',
    'Item 1 of 3\n\nGiven the following premises…',
    'Item 1 rationale',
    'Item 2 of 3',
    'Item 2 rationale',
    'Item 3 of 3',
    'Item 3 rationale',
  ];
  const importIds = names.map((n) => `{"ImportId":"${n}"}`);
  const lines = [names, texts, importIds].slice(0, headerRows).map(csvLine);
  for (const [id, finished, ...rest] of responses)
    lines.push(csvLine(['2026-11-01 10:00:00', finished, id, ...rest]));
  return lines.join('\r\n') + '\r\n';
}
