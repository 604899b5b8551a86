// A row's JSONL text is built in pieces (record.ts rowTextMaker, and lm-eval's mapper that reuses the line's own text
// for the prompt and the doc): it must be the same characters as JSON.stringify of the row object, for seeded random
// rows and samples lines in the styles real writers use, and for every real lm-eval samples file of the reference data.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  mappedRowMaker,
  rowMaker,
  rowTextMaker,
  detailString,
  type RowInput,
} from '../../src/convert/record.js';
import type { MappedRow } from '../../src/convert/types.js';
import {
  lmEvalLineMapper,
  lmEvalRowMapper,
  type LmEvalRowContext,
} from '../../src/convert/sources/lm-eval.js';
import { createRng } from '../../src/metrics/stats/rng.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';
import { blockFacts } from '../helpers/row-facts.js';

/** A mapped line's row text ('' for no row); its facts must be what the writer reads back from that text. */
function checkedJson(mapped: string | MappedRow, where: string): string {
  if (typeof mapped === 'string') return mapped;
  assert.deepEqual(mapped.facts, blockFacts(Buffer.from(`${mapped.json}\n`))[0], `facts of ${where}`);
  // A row said to be ASCII is written as Latin-1 (row-blocks.ts): any other character would be written wrong.
  if (mapped.ascii) {
    assert.ok(!NOT_ASCII.test(mapped.json), `${where}: a row marked ASCII holds a character above U+007F`);
    asciiRows++;
  }
  return mapped.json;
}

const NOT_ASCII = /[^\x00-\x7f]/;
let asciiRows = 0;
/** The mapper's `ascii` argument: what the reader passes (every byte of the line below 0x80). */
const asciiLine = (line: string): boolean => Buffer.byteLength(line) === line.length;

const TEXTS = [
  '',
  'plain',
  'quote " and \\ slash /',
  'line\nbreak\ttab',
  '\u0001ctl',
  'é ß ключ',
  '😀',
  '\ud800lone',
  '\u2028',
];

function pick<T>(random: () => number, xs: readonly T[]): T {
  return xs[Math.floor(random() * xs.length)];
}

function text(random: () => number): string {
  let s = '';
  for (let n = Math.floor(random() * 4); n > 0; n--) s += pick(random, TEXTS);
  return s;
}

function maybe<T>(random: () => number, make: () => T): T | undefined {
  return random() < 0.5 ? make() : undefined;
}

function randomRow(random: () => number): RowInput {
  const metadata: Record<string, unknown> = {};
  for (let n = Math.floor(random() * 5); n > 0; n--)
    metadata[pick(random, ['doc', 'doc_id', '0', 'k"', text(random)])] = pick(random, [
      undefined,
      null,
      0,
      -0,
      1.5,
      true,
      text(random),
      [text(random), 1],
      { a: text(random), b: [null] },
    ]);
  return {
    evaluationName: text(random),
    evaluationResultId: text(random),
    sampleId: text(random),
    interactionType: pick(random, [undefined, 'single_turn', 'multi_turn', 'agentic'] as const),
    input: {
      raw: text(random),
      formatted: pick(random, [undefined, null, text(random)]),
      reference: Array.from({ length: Math.floor(random() * 3) }, () => text(random)),
      choices: pick(random, [undefined, null, [text(random), text(random)]]),
    },
    output: maybe(random, () => ({ raw: [text(random)] })),
    messages: maybe(random, () => [{ role: 'user', content: text(random) }]),
    answerAttribution: maybe(random, () => [{ turn_idx: 0, extracted_value: text(random) }]),
    evaluation: { score: pick(random, [0, 1, 0.25, -0]), is_correct: random() < 0.5 },
    tokenUsage: maybe(random, () => ({ input_tokens: 3 })),
    performance: maybe(random, () => ({ latency_ms: 1.5 })),
    error: pick(random, [undefined, null, text(random)]),
    metadata: random() < 0.8 ? metadata : undefined,
  };
}

test('rowTextMaker writes JSON.stringify(rowMaker(row)), with and without texts known in advance', () => {
  const random = createRng(11);
  const asObject = rowMaker('id-1', 'dev/model');
  const asText = rowTextMaker('id-1', 'dev/model');
  for (let i = 0; i < 3000; i++) {
    const row = randomRow(random);
    const expected = JSON.stringify(asObject(row));
    assert.equal(asText(row), expected, `row ${i}`);
    const metadata = Object.fromEntries(
      Object.entries(row.metadata ?? {})
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, JSON.stringify(detailString(v))]),
    );
    assert.equal(asText(row, { raw: JSON.stringify(row.input.raw), metadata }), expected, `row ${i} (known)`);
  }
});

test('mappedRowMaker: the text rowTextMaker writes, and the facts tallyBlock reads back from it', () => {
  const random = createRng(12);
  const asText = rowTextMaker('id-1', 'dev/model');
  const mapped = mappedRowMaker('id-1', 'dev/model');
  let fromText = 0;
  for (let i = 0; i < 3000; i++) {
    const row = randomRow(random);
    // Scores that change on their way through JSON, and metadata members the tally reads (an epoch, the unscored
    // mark) or that only look like them from the bytes (a key ending in `"epoch`).
    row.evaluation.score = pick(random, [row.evaluation.score, -0, NaN, Infinity, 1e-7]);
    if (random() < 0.3)
      row.metadata = {
        ...row.metadata,
        [pick(random, ['epoch', 'score_missing', 'k"epoch', 'epochs'])]: pick(random, ['2', 'true', 3, 'x']),
      };
    if (random() < 0.1) row.evaluationResultId = undefined;
    const m = mapped(row);
    assert.equal(m.json, asText(row), `row ${i}`);
    checkedJson(m, `row ${i}`);
    if (Object.keys(row.metadata ?? {}).some((k) => k.includes('epoch') || k === 'score_missing')) fromText++;
  }
  assert.ok(fromText > 100, `${fromText} rows read from their text`);
});

const CONTEXT: LmEvalRowContext = {
  task: 'task',
  path: 'samples_task.jsonl',
  taskConfig: {},
  knownIds: ['task/acc,none', 'task/exact_match,strict-match'],
  taskResultIds: ['task/acc,none', 'task/exact_match,strict-match'],
  evaluationId: 'e1',
  modelId: 'dev/model',
};

/** Python's json.dumps with its default separators (`, ` and `: `), non-ASCII escaped when `asciiOnly`. */
function pythonDumps(value: unknown, asciiOnly: boolean): string {
  if (Array.isArray(value)) return `[${value.map((v) => pythonDumps(v, asciiOnly)).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${pythonDumps(k, asciiOnly)}: ${pythonDumps(v, asciiOnly)}`)
      .join(', ')}}`;
  const json = JSON.stringify(value);
  return asciiOnly
    ? json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : json;
}

function randomSample(random: () => number, i: number): Record<string, unknown> {
  const prompt = `Question ${i}: ${text(random)}`;
  const args = pick(random, [
    { gen_args_0: { arg_0: prompt, arg_1: { until: ['\n'] } } },
    { gen_args_1: { arg_0: 'second', arg_1: ' b' }, gen_args_0: { arg_1: ' a', arg_0: prompt } },
    { gen_args_10: { arg_0: 'ten' }, gen_args_2: { arg_0: prompt } },
    [
      [prompt, ' a'],
      [prompt, ' b'],
    ],
    [prompt],
    { gen_args_0: prompt },
    { gen_args_0: { arg_0: 42 } },
    {},
  ]);
  return {
    doc_id: i,
    doc: pick(random, [
      { question: text(random), answer: [1, 2.5, '3'], '0': 'index key' },
      text(random),
      7,
      null,
      { q: prompt },
    ]),
    target: pick(random, [text(random), [text(random)], 3]),
    arguments: args,
    resps: [[text(random)]],
    filtered_resps: pick(random, [
      [text(random)],
      [
        ['-1.5', 'False'],
        ['-0.5', 'True'],
      ],
    ]),
    filter: pick(random, ['none', 'strict-match']),
    metrics: ['exact_match', 'acc'],
    exact_match: pick(random, [0, 1, 1.0]),
    acc: 1,
    doc_hash: 'a'.repeat(64),
  };
}

test('lm-eval: the line mapper reusing the line’s text writes the same row as serialising the parsed line', () => {
  const random = createRng(23);
  const fromText = lmEvalLineMapper(CONTEXT);
  const fromValue = lmEvalRowMapper(CONTEXT);
  for (let i = 0; i < 2000; i++) {
    const sample = randomSample(random, i);
    const line = i % 3 === 0 ? JSON.stringify(sample) : pythonDumps(sample, i % 3 === 2);
    // A repeated key in the line: JSON.parse keeps the last value at the first place.
    const withRepeat = i % 10 === 0 ? line.replace(/^\{/, '{"doc": "first", "arguments": [], ') : line;
    const value: unknown = JSON.parse(withRepeat);
    assert.equal(
      checkedJson(fromText(value, i, withRepeat, asciiLine(withRepeat)), `line ${i}`),
      JSON.stringify(fromValue(value, i)),
      `line ${i}: ${withRepeat}`,
    );
  }
  assert.ok(asciiRows > 100, `${asciiRows} rows marked ASCII`);
});

test('lm-eval: a row is marked ASCII only when the line and the context are (a \\u escape, a model id with é)', () => {
  const line = (doc: string) =>
    `{"doc_id": 1, "doc": ${doc}, "target": "A", "arguments": [["Q?", " A"]], "resps": [["x"]], ` +
    `"filtered_resps": ["x"], "filter": "none", "metrics": ["acc"], "acc": 1.0}`;
  const marked = (context: LmEvalRowContext, text: string): boolean | undefined => {
    const mapped = lmEvalLineMapper(context)(JSON.parse(text), 1, text, asciiLine(text));
    assert.ok(typeof mapped !== 'string');
    return mapped.ascii;
  };
  assert.equal(marked(CONTEXT, line('"plain"')), true);
  assert.equal(marked(CONTEXT, line('"caf\\u00e9"')), false, 'an ASCII line whose doc spells é');
  assert.equal(marked(CONTEXT, line('"café"')), false);
  assert.equal(marked({ ...CONTEXT, modelId: 'dev/modèle' }, line('"plain"')), false);
});

const skip = skipWithoutReference('peers-wild/MANIFEST.json');

test(
  'lm-eval: every real samples file of the reference data maps to the same rows both ways',
  { skip },
  () => {
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true }))
        if (e.isDirectory()) walk(join(dir, e.name));
        else if (/^samples_.*\.jsonl$/.test(e.name)) files.push(join(dir, e.name));
    };
    walk(reference('peers')!);
    walk(reference('peers-wild')!);
    assert.ok(files.length >= 5, `found ${files.length} samples files`);
    const fromText = lmEvalLineMapper(CONTEXT);
    const fromValue = lmEvalRowMapper(CONTEXT);
    let lines = 0;
    for (const file of files)
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .forEach((l, i) => {
          const value: unknown = JSON.parse(l);
          assert.equal(
            checkedJson(fromText(value, i, l, asciiLine(l)), `${file}:${i + 1}`),
            JSON.stringify(fromValue(value, i)),
            `${file}:${i + 1}`,
          );
          lines++;
        });
    assert.ok(lines >= 50, `${lines} lines`);
  },
);
