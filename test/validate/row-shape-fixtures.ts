// Generators of rows for the row-shape tests: near-valid and adversarial EEE rows (text and value changes), and
// the exact path's verdict on one row, to compare the fast path with.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../src/validate/engine.js';
import { FileAccumulator } from '../../src/validate/file.js';
import { instanceRow } from './fixtures.js';

export type Rng = () => number;
export const pick = <T>(next: Rng, xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];

/** The exact path's verdict on one row: its "type@version" when it has no diagnostic at all, else undefined. */
export function exactClean(engine: Engine, bytes: Buffer): string | undefined {
  const acc = new FileAccumulator('row.jsonl');
  acc.document(engine, bytes, 1);
  const r = acc.result;
  if (r.errors + r.warnings + r.invalid > 0 || r.diagnostics.length > 0) return undefined;
  return Object.keys(r.types)[0];
}

/** Feeds rows through the exact path (and learning) of `engine`, as a JSONL file's rows are. */
export function learnFrom(engine: Engine, rows: readonly Buffer[]): void {
  const acc = new FileAccumulator('learn.jsonl');
  rows.forEach((bytes, k) => acc.line(engine, { line: k + 1, bytes }));
}

// ---------------------------------------------------------------------------------------------------------------
// Adversarial text: byte-level changes of a row's JSON text.

export const STRINGS = [
  '',
  'plain',
  'quote " inside',
  'back\\slash',
  'new\nline',
  'tab\t',
  '\u0001ctl',
  '\u007f',
  'café naïve',
  '数学 λ',
  '😀 emoji',
  '\ud800 lone',
  '\u2028\u2029',
  'single_turn',
  'multi_turn',
  '0.3.0',
  '0.2.2',
];
const NUMBERS = [
  0,
  -0,
  1,
  -1,
  2,
  1.5,
  -2.5,
  0.1,
  1e-7,
  1e21,
  123456789012345,
  1234567890123456,
  2 ** 53 + 2,
  100,
];
const RAW_NUMBERS = [
  '1e400',
  '-1e400',
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '1.0',
  '3.000',
  '01',
  '1.',
  '.5',
  '1e5',
  '1E-5',
  '-',
  '2.50',
  '1234567890123456789',
  '0.1234567890123456789',
];
const BYTES = [
  [0x22],
  [0x5c],
  [0x01],
  [0x7f],
  [0x7b],
  [0x7d],
  [0x2c],
  [0x3a],
  [0x5b],
  [0x5d],
  [0x20],
  [0x09],
  [0x0d],
  [0xff],
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xc3, 0xa9],
  [0xf0, 0x9f, 0x98, 0x80],
  [0xe6, 0x95],
  [0x61],
  [0x30],
  [0x2d],
];

function spliceBytes(b: Buffer, at: number, remove: number, insert: readonly number[]): Buffer {
  return Buffer.concat([b.subarray(0, at), Buffer.from(insert), b.subarray(at + remove)]);
}

/** One byte-level change of a row's text (several kinds, all seeded). */
export function textMutation(next: Rng, text: string): Buffer {
  const b = Buffer.from(text);
  const at = Math.floor(next() * b.length);
  switch (Math.floor(next() * 12)) {
    case 0: {
      // a number literal replaced by a raw token
      const numbers = [...text.matchAll(/(?<=[:,[])-?\d[\d.eE+-]*/g)];
      if (numbers.length === 0) return b;
      const m = pick(next, numbers);
      return Buffer.from(
        text.slice(0, m.index) + pick(next, RAW_NUMBERS) + text.slice(m.index! + m[0].length),
      );
    }
    case 1: {
      // a duplicate key: an existing key repeated just after its object's opening brace
      const keys = [...text.matchAll(/"([a-z_]+)":/g)];
      const opens = [...text.matchAll(/\{/g)];
      const k = pick(next, keys);
      const o = pick(next, opens);
      return Buffer.from(
        `${text.slice(0, o.index! + 1)}"${k[1]}":${pick(next, ['1', '"x"', 'null'])},${text.slice(o.index! + 1)}`,
      );
    }
    case 2:
      return spliceBytes(b, at, 0, pick(next, [[0x20], [0x09], [0x0d], [0x0a], [0x20, 0x20]]));
    case 3:
      return spliceBytes(b, at, 1, pick(next, BYTES));
    case 4:
      return spliceBytes(b, at, 0, pick(next, BYTES));
    case 5:
      return spliceBytes(b, at, 1, []);
    case 6:
      return b.subarray(0, at);
    case 7: {
      // a key spelled with an escape
      const keys = [...text.matchAll(/"([a-z]+)_([a-z_]*)":/g)];
      if (keys.length === 0) return b;
      const k = pick(next, keys);
      return Buffer.from(text.replace(k[0], `"${k[1]}\\u005f${k[2]}":`));
    }
    case 8: {
      // a letter of a string value written as an escape (or a bad escape)
      const i = text.indexOf('a', at);
      if (i < 0) return b;
      return Buffer.from(
        text.slice(0, i) + pick(next, ['\\u0061', '\\u00', '\\x61', '\\a', '\\/', '\\"']) + text.slice(i + 1),
      );
    }
    case 9:
      return Buffer.concat([b, Buffer.from(pick(next, [' ', ' x', ',', '}', '\t', '{}']))]);
    case 10:
      return Buffer.concat([Buffer.from(pick(next, [[0xef, 0xbb, 0xbf], [0x20], [0x0d]])), b]);
    default: {
      // two keys of one object swapped (another order)
      const m = /"input":\{"raw":("(?:[^"\\]|\\.)*"),"reference":(\[[^\]]*\])/.exec(text);
      if (!m) return b;
      return Buffer.from(text.replace(m[0], `"input":{"reference":${m[2]},"raw":${m[1]}`));
    }
  }
}

/** A value-level change of a row (before it is written as JSON). */
export function valueMutation(next: Rng, row: Record<string, unknown>): unknown {
  const copy = structuredClone(row) as Record<string, any>;
  const set = (value: unknown): void => {
    const places: [Record<string, any>, string | number][] = [];
    const visit = (v: any): void => {
      if (v === null || typeof v !== 'object') return;
      for (const k of Object.keys(v)) {
        places.push([v, Array.isArray(v) ? Number(k) : k]);
        visit(v[k]);
      }
    };
    visit(copy);
    const [holder, key] = pick(next, places);
    holder[key] = value;
  };
  switch (Math.floor(next() * 8)) {
    case 0:
      set(pick(next, STRINGS));
      break;
    case 1:
      set(pick(next, NUMBERS));
      break;
    case 2:
      set(pick(next, [true, false, null, [], {}, ['x'], { a: 'b' }]));
      break;
    case 3:
      copy[pick(next, ['extra', 'metadata', 'error', 'messages', 'evaluation_result_id'])] = pick(next, [
        'x',
        null,
        { k: 'v' },
        [],
      ]);
      break;
    case 4:
      delete copy[pick(next, Object.keys(copy))];
      break;
    case 5:
      copy.input.reference = pick(next, [[], ['A', 'B'], ['A', 'A'], [1]]);
      break;
    case 6:
      copy.evaluation.score = pick(next, NUMBERS);
      copy.answer_attribution[0].turn_idx = pick(next, [0, 1, -1, 2.5, 1e21, 7]);
      break;
    default:
      copy.output.raw = [...copy.output.raw, pick(next, STRINGS)];
  }
  return copy;
}

/** A realistic EEE 0.3.0 row with seeded free text. */
export function baseRow(next: Rng, i: number): Record<string, unknown> {
  const words = (n: number): string =>
    Array.from({ length: n }, () =>
      pick(next, ['the', 'model', '"q"', 'café', '数学', '\n', 'x\\y', 'λ']),
    ).join(' ');
  const row = instanceRow(i, {
    sample_hash: next() < 0.5 ? null : `h${i}`,
    input: { raw: words(20), reference: [pick(next, ['A', 'B'])], choices: ['A', 'B', 'C', 'D'] },
    output: { raw: [words(8)], reasoning_trace: null },
    token_usage: { input_tokens: i, output_tokens: 3, total_tokens: i + 3 },
    performance: { latency_ms: next() * 900, time_to_first_token_ms: null, generation_time_ms: null },
  });
  (row.evaluation as Record<string, unknown>).score = Math.round(next() * 100) / 100;
  return row;
}

/** Every .jsonl/.ndjson file under a folder, sorted. */
export function jsonlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...jsonlFiles(path));
    else if (/\.(jsonl|ndjson)$/.test(name)) out.push(path);
  }
  return out;
}

/** The non-blank lines of a file, without their line breaks. */
export function readLines(path: string): Buffer[] {
  return readFileSync(path)
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => Buffer.from(l.replace(/\r$/, '')));
}
