// Every example in examples/eee validates as its path says: under invalid/ it fails (for JSONL exactly the lines
// named by "bad-lines-…" in the file name), elsewhere it passes. With the reference data present, the upstream
// schemas give the same verdicts. The datastore example is internally consistent (path, checksum, rows, hashes).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import type { ValidateFunction } from 'ajv';
import { eeeAggregateType, eeeInstanceType } from '../../src/formats/eee/index.js';
import { findVersion } from '../../src/formats/registry.js';
import type { DocumentType, FormatVersion } from '../../src/formats/types.js';
import { canonicalJson } from '../../src/io/canonical.js';
import { createAjv } from '../../src/validate/ajv.js';
import { projectRoot, reference } from '../helpers/shared.js';

const root = join(projectRoot, 'examples', 'eee');

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : [path];
    });
}

const compiled = new Map<FormatVersion, { ours: ValidateFunction; upstream?: ValidateFunction }>();
function validators(version: FormatVersion) {
  let entry = compiled.get(version);
  if (!entry) {
    const upstreamPath = version.upstreamSchema ? reference(version.upstreamSchema) : undefined;
    entry = {
      ours: createAjv(version.dialect).compile(JSON.parse(JSON.stringify(version.schema))),
      upstream: upstreamPath
        ? createAjv('draft-07').compile(JSON.parse(readFileSync(upstreamPath, 'utf8')))
        : undefined,
    };
    compiled.set(version, entry);
  }
  return entry;
}

function typeOf(doc: Record<string, unknown>): DocumentType {
  const types = [eeeAggregateType, eeeInstanceType].filter((t) => t.looksLike(doc));
  assert.equal(types.length, 1, `exactly one EEE type should match: ${types.map((t) => t.id)}`);
  return types[0];
}

/** Our verdict, checked against upstream's when the reference data is there. */
function verdict(doc: Record<string, unknown>, where: string): boolean {
  const type = typeOf(doc);
  const version = findVersion(type, String(doc.schema_version));
  assert.ok(version, `${where}: schema_version ${String(doc.schema_version)} unknown`);
  const { ours, upstream } = validators(version);
  const valid = ours(doc);
  if (upstream) assert.equal(upstream(doc), valid, `${where}: upstream verdict differs`);
  return valid;
}

const files = walk(root).filter((f) => f.endsWith('.json') || f.endsWith('.jsonl'));

test('examples/eee holds valid and invalid examples of both types', () => {
  const names = files.map((f) => relative(root, f));
  assert.ok(names.some((n) => n.startsWith('data/') && n.endsWith('_samples.jsonl')));
  assert.ok(names.some((n) => n.startsWith('invalid/') && n.endsWith('.jsonl')));
  assert.ok(names.filter((n) => n.startsWith('invalid/')).length >= 4);
});

for (const file of files) {
  const name = relative(root, file);
  const invalid = name.startsWith('invalid/');
  test(`example ${name} is ${invalid ? 'invalid' : 'valid'} as its name says`, () => {
    const text = readFileSync(file, 'utf8');
    if (file.endsWith('.json')) {
      assert.equal(verdict(JSON.parse(text), name), !invalid);
      return;
    }
    const expectedBad = (/bad-lines-([\d-]+)/.exec(name)?.[1] ?? '').split('-').filter(Boolean).map(Number);
    assert.equal(invalid, expectedBad.length > 0, 'an invalid JSONL example names its bad lines');
    const bad = text
      .split('\n')
      .map((line, i) => ({ line, n: i + 1 }))
      .filter(({ line }) => line.trim() !== '')
      .filter(({ line, n }) => !verdict(JSON.parse(line), `${name}:${n}`))
      .map(({ n }) => n);
    assert.deepEqual(bad, expectedBad);
  });
}

test('the datastore example is consistent: path, checksum, row count, hashes, foreign keys', () => {
  const aggregates = files.filter((f) => relative(root, f).startsWith('data/') && f.endsWith('.json'));
  assert.equal(aggregates.length, 1);
  const aggregatePath = aggregates[0];
  const relativePath = relative(root, aggregatePath);
  assert.match(
    relativePath,
    /^data\/[^/]+\/[^/]+\/[^/]+\/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.json$/,
  );
  const aggregate = JSON.parse(readFileSync(aggregatePath, 'utf8'));
  const detailed = aggregate.detailed_evaluation_results;
  assert.equal(detailed.file_path, relativePath.replace(/\.json$/, '_samples.jsonl'));
  const bytes = readFileSync(join(root, detailed.file_path));
  assert.equal(detailed.hash_algorithm, 'sha256');
  assert.equal(detailed.checksum, createHash('sha256').update(bytes).digest('hex'));
  const rows = bytes
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
  assert.equal(detailed.total_rows, rows.length);
  const resultIds = new Set(
    aggregate.evaluation_results.map((r: { evaluation_result_id: string }) => r.evaluation_result_id),
  );
  for (const row of rows) {
    assert.equal(row.evaluation_id, aggregate.evaluation_id);
    assert.equal(row.model_id, aggregate.model_info.id);
    assert.ok(resultIds.has(row.evaluation_result_id), row.evaluation_result_id);
    const expected = createHash('sha256')
      .update(canonicalJson({ raw: row.input.raw, reference: row.input.reference ?? [] }), 'utf8')
      .digest('hex');
    assert.equal(row.sample_hash, expected, row.sample_id);
  }
});

test('the quirk examples are explained to the user', () => {
  const cases: [string, FormatVersion, RegExp][] = [
    [
      'invalid/aggregate-0.2.2-quirk-no-score-type-needs-level-names.json',
      findVersion(eeeAggregateType, '0.2.2')!,
      /requires level_names and has_unknown_level when score_type is "levels" or absent/,
    ],
    [
      'invalid/instances-0.2.0-quirk-metrics-needs-num-turns-bad-lines-2.jsonl',
      findVersion(eeeInstanceType, '0.2.0')!,
      /top-level "metrics" object/,
    ],
  ];
  for (const [name, version, message] of cases) {
    const text = readFileSync(join(root, name), 'utf8');
    const docs = name.endsWith('.jsonl')
      ? text
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l))
      : [JSON.parse(text)];
    const validate = validators(version).ours;
    const explained = docs.flatMap((doc) => {
      validate(doc);
      return (validate.errors ?? [])
        .map((e) => version.explainSchemaError?.(e))
        .filter((m) => m !== undefined);
    });
    assert.ok(
      explained.some((m) => message.test(m!)),
      `${name}: ${JSON.stringify(explained)}`,
    );
  }
});
