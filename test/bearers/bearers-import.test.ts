// bearers-import: the grammar (each construct, each mistake at its line and column), the mapping onto a benchmark
// (the pending panel, declared analysts, renamed fields), the constraint compiler and its checks on every item, the
// validator's rules placed in the items document, determinism, and the CLI (exit codes, json, --force, refusing to
// write over an input). Expected values are worked out by hand from the small files below.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PENDING_ANALYST } from '../../src/formats/infereval/bearers/build.js';
import { bearersImport } from '../../src/validate/infereval.js';
import { compileConstraints } from '../../src/formats/infereval/bearers/compile.js';
import { parseBearers } from '../../src/formats/infereval/bearers/parse.js';
import { validateValue } from '../../src/validate/index.js';
import { cli } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';
import { tempDir } from '../survey/import-fixture.js';

const BEARERS = [
  '# A lawn: is it wet?', // 1 prose
  '# @ordinal rain = [dry, drizzle, downpour] @target wet', // 2
  '# @mutex cover = [covered, open]', // 3
  '#   @entails downpour -> puddles', // 4 (indented marker)
  '# @mutex ground = [puddles, no_puddles]', // 5
  '# @copresent rain & cover   (both always said)', // 6 trailing prose after the families
  '# ~regularity:  more rain, wetter lawn ', // 7
  '# the word @ordinal mid-sentence is prose', // 8
  'wet "the lawn is wet"', // 9
  'dry "no rain fell"', // 10
  'drizzle "a drizzle fell"', // 11
  'downpour "a downpour fell"', // 12
  'covered "the lawn was covered"', // 13
  'open "the lawn was open to the sky"', // 14
  'puddles "there are puddles"', // 15
  'no_puddles "there are no puddles"', // 16
  'wet "the lawn is wet"', // 17 the same definition again: allowed
].join('\n');

const items = (overrides: Record<string, unknown> = {}, list?: unknown[]): string =>
  JSON.stringify(
    {
      _meta: { id: 'lawn', title: 'Lawn', targets: ['wet'], ...overrides },
      items: list ?? [
        { id: 'l1', premises: ['drizzle', 'open'], target: 'wet', placeholder: 'good', note: 'base case' },
        {
          id: 'l2',
          premises: ['downpour', 'open', 'puddles'],
          target: 'wet',
          ladder: 'rain',
          variation: 'monotonicity_step',
          monotonicity: { family: 'rain', tier: 'downpour', tier_index: 2 },
        },
        { id: 'l3', premises: ['dry', 'covered'], conclusions: ['wet'], placeholder: 'bad' },
      ],
    },
    null,
    2,
  );

test('the grammar: every construct, in file order', () => {
  const { doc, diagnostics } = parseBearers(BEARERS, 'b.txt');
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(
    [...doc.bearers.keys()],
    ['wet', 'dry', 'drizzle', 'downpour', 'covered', 'open', 'puddles', 'no_puddles'],
  );
  assert.deepEqual(
    doc.families.map((f) => [f.family, f.tiers, f.ordered, f.target, f.line]),
    [
      ['rain', ['dry', 'drizzle', 'downpour'], true, 'wet', 2],
      ['cover', ['covered', 'open'], false, null, 3],
      ['ground', ['puddles', 'no_puddles'], false, null, 5],
    ],
  );
  assert.deepEqual(doc.entailments, [{ antecedent: 'downpour', consequent: 'puddles', line: 4 }]);
  assert.deepEqual(doc.copresence, [{ families: ['rain', 'cover'], line: 6 }]);
  assert.deepEqual(doc.regularities, ['more rain, wetter lawn']);
});

test('the grammar: each mistake at its line and column, all of them, not only the first', () => {
  const text = [
    'a "alpha"', // 1
    '  b beta without quotes', // 2: column 3
    'a "another alpha"', // 3: redefinition
    '# @ordinal f [a, b]', // 4: malformed, the marker at column 3
    '## @mutex g = []', // 5: no tiers, marker at column 4
    '# @copresent f', // 6: one family
    '# @entails a -> zz', // 7: unknown bearer
    '# @mutex h = [a, c]', // 8: unknown bearer c
    '# @mutex k = [a]', // 9: a in two families
    '# @copresent h & nope', // 10: unknown family
    '# @shout loudly', // 11: unknown annotation (warning)
  ].join('\r\n');
  const { diagnostics } = parseBearers(text, 'x.txt');
  assert.deepEqual(
    diagnostics.map((d) => [d.line, d.column, d.severity, d.code]),
    [
      [2, 3, 'error', 'bearers.syntax'],
      [3, 1, 'error', 'bearers.redefined'],
      [4, 3, 'error', 'bearers.syntax'],
      [5, 4, 'error', 'bearers.syntax'],
      [6, 3, 'error', 'bearers.syntax'],
      [7, 1, 'error', 'bearers.unknown-bearer'],
      [8, 1, 'error', 'bearers.unknown-bearer'],
      [9, 1, 'error', 'bearers.bearer-in-two-families'],
      [10, 1, 'error', 'bearers.unknown-family'],
      [11, 3, 'warning', 'bearers.unknown-annotation'],
    ],
  );
  assert.match(diagnostics[1].message, /redefined .*line 1: "alpha"/);
  assert.match(diagnostics[6].message, /"c", which is not a bearer/);
});

test('the compiler: pairwise exclusivity per family, one admissibility rule per @copresent, entailments', () => {
  const { doc } = parseBearers(BEARERS, 'b.txt');
  const c = compileConstraints(doc);
  // Families sorted by name (cover, ground, rain); tiers sorted within: 1 + 1 + 3 pairs.
  assert.deepEqual(
    c.exclusivity.map((s) => s.premises.join('+')),
    ['covered+open', 'no_puddles+puddles', 'downpour+drizzle', 'downpour+dry', 'drizzle+dry'],
  );
  assert.ok(c.exclusivity.every((s) => s.conclusions.length === 0));
  assert.deepEqual(c.admissibility, [{ families: ['rain', 'cover'] }]);
  assert.deepEqual(c.entailment, [{ premises: ['downpour'], conclusions: ['puddles'] }]);
});

test('the mapping: pending panel, renamed fields, families onto bearers; the result passes evalkit validate', () => {
  const r = bearersImport(BEARERS, items(), { bearers: 'b.txt', items: 'i.json' });
  assert.equal(r.summary.errors, 0, JSON.stringify(r.diagnostics));
  const b = r.benchmark as any;
  assert.deepEqual(b.analysts, [PENDING_ANALYST]);
  assert.deepEqual(
    b.items.map((i: any) => i.analyst_verdicts),
    [['abstain'], ['abstain'], ['abstain']],
    'the stand-in abstains; the placeholders are not verdicts',
  );
  assert.equal(b.items[0].placeholder, 'good');
  assert.equal(b.items[0].construction_note, 'base case');
  assert.deepEqual(b.items[0].conclusions, ['wet']);
  assert.equal(b.items[0].target, 'wet');
  assert.deepEqual(b.items[1].monotonicity_step, { family: 'rain', tier: 'downpour', tier_index: 2 });
  assert.deepEqual(b.items[2].conclusions, ['wet']);
  assert.deepEqual(b.bearers.drizzle, { expression: 'a drizzle fell', ordinal_family: 'rain' });
  assert.deepEqual(b.bearers.wet, { expression: 'the lawn is wet' });
  assert.deepEqual(b.ordinal_families, {
    rain: ['dry', 'drizzle', 'downpour'],
    cover: ['covered', 'open'],
    ground: ['puddles', 'no_puddles'],
  });
  assert.deepEqual(b.copresence_rules, [{ families: ['rain', 'cover'] }]);
  assert.deepEqual(b.entailment_rules, [{ antecedent: 'downpour', consequent: 'puddles' }]);
  assert.deepEqual(b.regularities, [{ description: 'more rain, wetter lawn' }]);
  assert.deepEqual([b.id, b.title, b.targets], ['lawn', 'Lawn', ['wet']]);
  assert.equal(validateValue(b).valid, true);
  assert.deepEqual(
    r.diagnostics.map((d) => [d.code, d.severity, d.pointer]),
    [['bearers.pending-panel', 'warning', '/_meta/analysts']],
  );

  const analysts = [
    { id: 'ann', display_name: 'Ann' },
    { id: 'bo', display_name: 'Bo' },
  ];
  const declared = bearersImport(
    BEARERS,
    items({ analysts }, [
      { id: 'l1', premises: ['drizzle', 'open'], target: 'wet', analyst_verdicts: ['good', 'bad'] },
    ]),
    { bearers: 'b.txt', items: 'i.json' },
  );
  assert.deepEqual(declared.diagnostics, []);
  assert.deepEqual((declared.benchmark as any).analysts, analysts);
  assert.deepEqual((declared.benchmark as any).items[0].analyst_verdicts, ['good', 'bad']);
});

test('every rule an item breaks, at its place in the items document and naming the item', () => {
  const list = [
    { id: 'half', premises: ['drizzle'], target: 'wet' },
    { id: 'both', premises: ['dry', 'downpour', 'open'], target: 'wet' },
    { id: 'exclusivity', premises: ['dry', 'downpour'], conclusions: [] },
    { id: 'contra', premises: ['downpour', 'open', 'no_puddles'], target: 'wet' },
    { id: 'ghost', premises: ['drizzle', 'open', 'fog'], target: 'wet' },
    { id: 'aside', premises: ['drizzle', 'open'], target: 'dry' },
  ];
  const text = items({}, list);
  const r = bearersImport(BEARERS, text, { bearers: 'b.txt', items: 'i.json' });
  const got = r.diagnostics
    .filter((d) => d.severity === 'error')
    .map((d) => [d.code, d.pointer, /^item "([^"]+)"/.exec(d.message)?.[1]]);
  assert.deepEqual(got, [
    ['bearers.copresence-unsaturated', '/items/0/premises', 'half'],
    ['bearers.exclusive-tiers', '/items/1/premises', 'both'],
    ['bearers.entailment-contradicted', '/items/3/premises', 'contra'],
    ['infereval.item-bearers-exist', '/items/4/premises/2', 'ghost'],
    ['infereval.item-target-declared', '/items/5/target', 'aside'],
  ]);
  // Positions are where the value is in the text written above.
  const lines = text.split('\n');
  for (const d of r.diagnostics.filter((x) => x.pointer.startsWith('/items/'))) {
    const line = lines[d.line - 1];
    assert.ok(line !== undefined && d.column >= 1, `${d.code} at ${d.line}:${d.column}`);
  }
  const ghost = r.diagnostics.find((d) => d.code === 'infereval.item-bearers-exist')!;
  assert.equal(lines[ghost.line - 1].slice(ghost.column - 1, ghost.column + 4), '"fog"');
  assert.equal(r.summary.errors, 5);
});

test('CLI: check only, write, --force, json, exit codes, never over an input; the example builds and validates', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'b.txt'), BEARERS);
  writeFileSync(join(dir, 'i.json'), items());
  const check = await cli(['bearers-import', 'b.txt', 'i.json'], dir);
  assert.equal(check.code, 0, check.stderr);
  assert.match(
    check.stdout,
    /checked: benchmark "lawn": 8 bearers, 3 items, 1 analyst\(s\) \(pending panel\), 3 families/,
  );
  const wrote = await cli(['bearers-import', 'b.txt', 'i.json', '-o', 'out.json'], dir);
  assert.equal(wrote.code, 0, wrote.stderr);
  const first = readFileSync(join(dir, 'out.json'));
  assert.equal((await cli(['bearers-import', 'b.txt', 'i.json', '-o', 'out.json'], dir)).code, 2);
  assert.equal((await cli(['bearers-import', 'b.txt', 'i.json', '-o', 'out.json', '--force'], dir)).code, 0);
  assert.deepEqual(readFileSync(join(dir, 'out.json')), first, 'the same inputs give the same bytes');
  const valid = await cli(['validate', 'out.json'], dir);
  assert.equal(valid.code, 0, valid.stdout);
  const onto = await cli(['bearers-import', 'b.txt', 'i.json', '-o', 'i.json', '--force'], dir);
  assert.equal(onto.code, 2);
  assert.equal(readFileSync(join(dir, 'i.json'), 'utf8'), items(), 'the input is untouched');

  writeFileSync(join(dir, 'bad.json'), items({}, [{ id: 'half', premises: ['drizzle'], target: 'wet' }]));
  const bad = await cli(
    ['bearers-import', 'b.txt', 'bad.json', '-o', 'bad-out.json', '--format', 'json'],
    dir,
  );
  assert.equal(bad.code, 1);
  const report = JSON.parse(bad.stdout);
  assert.equal(report.output, null);
  assert.equal(report.errors, 1);
  assert.equal(
    report.diagnostics.find((d: any) => d.severity === 'error').code,
    'bearers.copresence-unsaturated',
  );
  assert.equal(report.compiled.exclusivity.length, 5);
  assert.throws(() => readFileSync(join(dir, 'bad-out.json')), /ENOENT/);

  const ex = join(projectRoot, 'examples/bearers');
  const example = await cli([
    'bearers-import',
    join(ex, 'ferry.bearers'),
    join(ex, 'ferry.items.json'),
    '-o',
    join(dir, 'ferry.json'),
  ]);
  assert.equal(example.code, 0, example.stdout);
  assert.equal((await cli(['validate', join(dir, 'ferry.json')])).code, 0);
  const broken = await cli(['bearers-import', join(ex, 'ferry.bearers'), join(ex, 'invalid.items.json')]);
  assert.equal(broken.code, 1);
  assert.equal(broken.stdout.match(/ error /g)?.length, 6);
});
