// The infereval examples: the quick-start benchmark and its evaluation are valid (ours and, when present, the
// upstream schema), are what they claim to be, load; each invalid example fails with the code its README names.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DataError, IoError } from '../../src/errors.js';
import { documentTypes } from '../../src/formats/registry.js';
import { benchmarkHash } from '../../src/formats/infereval/hash.js';
import { normaliseBenchmark } from '../../src/formats/infereval/index.js';
import { checkInfereval, loadInfereval } from '../../src/validate/infereval.js';
import { createAjv } from '../../src/validate/ajv.js';
import { projectRoot, reference, skipWithoutReference } from '../helpers/shared.js';

const dir = join(projectRoot, 'examples', 'infereval');
const read = (name: string): any => JSON.parse(readFileSync(join(dir, name), 'utf8'));

describe('examples/infereval', () => {
  test('benchmark.json and evaluation.json pass schema and rules, and are detected as what they are', () => {
    for (const [name, kind, id] of [
      ['benchmark.json', 'benchmark', 'infereval.benchmark'],
      ['evaluation.json', 'evaluation', 'infereval.evaluation'],
    ] as const) {
      const doc = read(name);
      assert.deepEqual(checkInfereval(doc, kind), [], name);
      const claimed = documentTypes.filter((t) => t.looksLike(doc)).map((t) => t.id);
      assert.deepEqual(claimed, [id], `${name} detected as ${claimed.join(', ')}`);
    }
  });

  test(
    'both are valid under the upstream schemas too',
    { skip: skipWithoutReference('infereval/schemas') },
    () => {
      for (const [name, schema] of [
        ['benchmark.json', 'benchmark.schema.json'],
        ['evaluation.json', 'evaluation.schema.json'],
      ]) {
        const upstream = JSON.parse(readFileSync(reference(`infereval/schemas/${schema}`) as string, 'utf8'));
        const validate = createAjv('2020-12').compile(upstream);
        assert.ok(validate(read(name)), `${name}: ${JSON.stringify(validate.errors)}`);
      }
    },
  );

  test('the benchmark exercises what the quick-start and runner need', () => {
    const b = normaliseBenchmark(read('benchmark.json'));
    assert.ok(b.items.length >= 12);
    assert.ok(b.analysts.length >= 2 && b.analysts.every((a) => a.panel !== null));
    const tags = new Set(b.items.flatMap((i) => i.tags));
    for (const tag of ['base-inference', 'supporter', 'defeater', 'irrelevant-addition'])
      assert.ok(tags.has(tag), tag);
    assert.ok(Object.values(b.bearers).filter((x) => x.paraphrases.length > 0).length >= 5);
    assert.ok(b.items.filter((i) => i.rsr_target !== null).length >= 12);
    const ladder = b.items.filter((i) => i.monotonicity_step !== null);
    assert.ok(ladder.length >= 3);
    assert.ok(Object.keys(b.factors).length >= 2);
    // Verdicts are not all the same, so kappa and coverage are informative.
    assert.ok(new Set(b.items.flatMap((i) => i.analyst_verdicts)).size === 3);
  });

  test('the evaluation matches its benchmark: items, hash, 3 samples each, votes consistent with samples', () => {
    const raw = read('benchmark.json');
    const b = normaliseBenchmark(raw);
    const e = read('evaluation.json');
    assert.equal(e.benchmark_id, b.id);
    assert.equal(e.benchmark_hash, benchmarkHash(raw));
    assert.deepEqual(
      e.items.map((i: any) => [i.id, i.premises, i.conclusions, i.analyst_verdicts]),
      b.items.map((i) => [i.id, i.premises, i.conclusions, i.analyst_verdicts]),
    );
    for (const item of e.items) {
      assert.equal(item.samples.length, 3, item.id);
      const counted = item.samples.filter((s: any) => !s.provider_error);
      for (const v of ['good', 'bad', 'abstain']) {
        assert.equal(
          item.majority_vote[v],
          counted.filter((s: any) => s.parsed_verdict === v).length,
          `${item.id} ${v}`,
        );
      }
      assert.equal(item.model_verdict, item.majority_vote.verdict);
    }
    const statuses = new Set(e.items.flatMap((i: any) => i.samples.map((s: any) => s.parse_status)));
    for (const s of ['ok', 'unparseable', 'sample_failed', 'budget_clipped']) assert.ok(statuses.has(s), s);
  });

  test('loadInfereval returns the normalised documents', async () => {
    const b = await loadInfereval(join(dir, 'benchmark.json'), 'benchmark');
    assert.equal(b.context_builders.premise.kind, 'template');
    const e = await loadInfereval(join(dir, 'evaluation.json'), 'evaluation');
    assert.equal(e.items.length, b.items.length);
    assert.equal(e.endorsement_config.n_samples, 3);
  });
});

describe('examples/infereval/invalid: each fails with the code its README names', () => {
  const readme = readFileSync(join(dir, 'invalid', 'README.md'), 'utf8');
  const rows = [...readme.matchAll(/^\|\s*`([^`]+\.json)`\s*\|[^|]*\|(.+)\|\s*$/gm)].map((m) => ({
    file: m[1],
    codes: [...m[2].matchAll(/`([^`]+)`/g)].map((c) => c[1]),
  }));

  test('the README lists every invalid example', () => {
    assert.ok(rows.length >= 6);
  });

  for (const { file, codes } of rows) {
    test(file, () => {
      const kind = file.startsWith('evaluation') ? 'evaluation' : 'benchmark';
      const issues = checkInfereval(read(`invalid/${file}`), kind);
      assert.deepEqual([...new Set(issues.map((i) => i.code))].sort(), [...codes].sort());
    });
  }
});

describe('loadInfereval errors', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'evalkit-infereval-'));
  test.after(() => rmSync(tmp, { recursive: true, force: true }));

  test('a missing file is an IoError', async () => {
    await assert.rejects(loadInfereval(join(tmp, 'nope.json'), 'benchmark'), (err: unknown) => {
      assert.ok(err instanceof IoError);
      assert.match(err.message, /nope\.json: no such file/);
      return true;
    });
  });

  test('invalid JSON is a DataError with the position of the problem', async () => {
    const path = join(tmp, 'broken.json');
    writeFileSync(path, '{\n  "id": "b",\n  "id": "c"\n}\n');
    await assert.rejects(loadInfereval(path, 'benchmark'), (err: unknown) => {
      assert.ok(err instanceof DataError);
      assert.equal(err.code, 'json.duplicate-key');
      assert.match(err.message, /broken\.json:3:\d+ error json\.duplicate-key/);
      return true;
    });
    writeFileSync(path, '{"id": ');
    await assert.rejects(loadInfereval(path, 'benchmark'), (err: unknown) => {
      assert.ok(err instanceof DataError);
      assert.match(err.code, /^json\./);
      return true;
    });
  });

  test('a rule violation is a DataError with the rule code, file:line:column and the pointer', async () => {
    await assert.rejects(
      loadInfereval(join(dir, 'invalid', 'benchmark-unknown-bearer.json'), 'benchmark'),
      (err: unknown) => {
        assert.ok(err instanceof DataError);
        assert.equal(err.code, 'infereval.item-bearers-exist');
        assert.match(err.message, /benchmark-unknown-bearer\.json:44:9 error infereval\.item-bearers-exist/);
        assert.match(err.message, /\(at \/items\/1\/premises\/1\)/);
        assert.match(err.message, /"pengiun"/);
        return true;
      },
    );
  });

  test('a benchmark given where an evaluation is needed (and back) is named as such', async () => {
    await assert.rejects(loadInfereval(join(dir, 'benchmark.json'), 'evaluation'), (err: unknown) => {
      assert.ok(err instanceof DataError);
      assert.equal(err.code, 'input.wrong-kind');
      assert.match(
        err.message,
        /this is an infereval benchmark \(β\) \(infereval\.benchmark 1\.0\); this command takes an infereval evaluation \(η\)/,
      );
      return true;
    });
    await assert.rejects(
      loadInfereval(join(dir, 'evaluation.json'), 'benchmark'),
      /infereval evaluation \(η\)/,
    );
  });

  test('the bare-string reference shorthand is accepted on load', async () => {
    const b = await loadInfereval(join(dir, 'invalid', 'benchmark-bare-string-reference.json'), 'benchmark');
    assert.deepEqual(b.references[0], {
      citation: 'Reiter 1980',
      doi: null,
      url: null,
      section: null,
      note: null,
    });
  });
});
