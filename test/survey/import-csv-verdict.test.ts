// The RFC 4180 reader the survey importers share, and the choice → verdict decode tables.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { DataError } from '../../src/errors.js';
import { decodeCsvBytes, parseCsv } from '../../src/io/csv-reader.js';
import { decodeChoice, verdictFromChoice } from '../../src/survey/verdict.js';

const fields = (text: string) => parseCsv(text, 'f.csv').map((r) => r.fields);
const lines = (text: string) => parseCsv(text, 'f.csv').map((r) => r.line);

describe('parseCsv', () => {
  it('splits plain records with LF, CRLF and CR line ends, with or without a final line break', () => {
    assert.deepEqual(fields('a,b\nc,d\n'), [
      ['a', 'b'],
      ['c', 'd'],
    ]);
    assert.deepEqual(fields('a,b\r\nc,d'), [
      ['a', 'b'],
      ['c', 'd'],
    ]);
    assert.deepEqual(fields('a,b\rc,d\r'), [
      ['a', 'b'],
      ['c', 'd'],
    ]);
  });

  it('keeps empty fields, including a trailing one', () => {
    assert.deepEqual(fields(',a,,\n'), [['', 'a', '', '']]);
    assert.deepEqual(fields('x,\n'), [['x', '']]);
  });

  it('unquotes fields holding commas, doubled quotes and line breaks, and counts lines through them', () => {
    const text = 'id,text\r\n1,"a, ""quoted"" word"\r\n2,"two\r\nlines\nand three"\r\n3,end\r\n';
    assert.deepEqual(fields(text), [
      ['id', 'text'],
      ['1', 'a, "quoted" word'],
      ['2', 'two\r\nlines\nand three'],
      ['3', 'end'],
    ]);
    assert.deepEqual(lines(text), [1, 2, 3, 6]);
  });

  it('drops a UTF-8 byte-order mark, in the text and in the bytes', () => {
    assert.deepEqual(fields('\uFEFFResponseId,x\n'), [['ResponseId', 'x']]);
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Good — yes', 'utf8')]);
    assert.equal(decodeCsvBytes(bytes, 'f.csv'), 'Good — yes');
  });

  it('refuses bytes that are not UTF-8, naming line and column', () => {
    // "Good " then 0x97, Windows-1252's em dash
    const bytes = Buffer.from([0x47, 0x6f, 0x6f, 0x64, 0x20, 0x97]);
    assert.throws(
      () => decodeCsvBytes(bytes, 'r.csv'),
      (e: DataError) => e.code === 'csv.not-utf8' && /^r\.csv:1:6: invalid UTF-8 byte 0x97/.test(e.message),
    );
  });

  it('reports an unclosed quote at the line and column where it opened', () => {
    assert.throws(
      () => parseCsv('a,b\nc,"never\nclosed\n', 'r.csv'),
      (e: DataError) => e.code === 'csv.unterminated-quote' && e.message.startsWith('r.csv:2:3:'),
    );
  });

  it('reports text after a closing quote', () => {
    assert.throws(
      () => parseCsv('a,"b"x,c\n', 'r.csv'),
      (e: DataError) => e.code === 'csv.bad-quote' && e.message.startsWith('r.csv:1:6:'),
    );
  });

  it('reads nothing from an empty text', () => {
    assert.deepEqual(fields(''), []);
  });
});

describe('verdictFromChoice: the decode tables', () => {
  const cases: [string, 'support' | 'coherence', string | undefined][] = [
    ['Good — follows from premises', 'support', 'good'],
    ['Bad — does not follow', 'support', 'bad'],
    ['Abstain — cannot judge', 'support', 'abstain'],
    ['  good', 'support', 'good'],
    ['GOOD—follows', 'support', 'good'],
    ['Incoherent — the position is untenable', 'coherence', 'good'],
    ['Coherent — the position can be held without conflict', 'coherence', 'bad'],
    ['Unclear — cannot judge', 'coherence', 'abstain'],
    // a word of the other form, or something else, is no verdict
    ['Coherent', 'support', undefined],
    ['Good', 'coherence', undefined],
    ['Goodish', 'support', undefined],
    ['1', 'support', undefined],
    ['', 'support', undefined],
  ];
  for (const [text, form, expected] of cases)
    it(`${JSON.stringify(text)} under ${form} → ${expected}`, () => {
      assert.equal(verdictFromChoice(text, form), expected);
    });

  it('names the respondent, the column and the place of an unknown choice, with a hint', () => {
    const origin = { where: 'r.csv:7', respondent: 'R_1', column: 'c2' };
    assert.throws(
      () => decodeChoice('Maybe', 'support', origin),
      (e: DataError) =>
        e.code === 'survey.unknown-choice' &&
        e.message ===
          'r.csv:7: respondent "R_1", column "c2": unrecognised choice "Maybe" for the support question (expected a label starting with Good, Bad, Abstain)',
    );
    assert.throws(
      () => decodeChoice('Coherent — fine', 'support', origin),
      /this is a coherence answer: import it as the coherence question/,
    );
    assert.throws(() => decodeChoice('2', 'support', origin), /export the responses again with choice text/);
  });
});
