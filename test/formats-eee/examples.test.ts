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
import { sampleHash } from '../../src/formats/eee/sample-hash.js';
import { createAjv } from '../../src/validate/ajv.js';
import { projectRoot, reference, UPSTREAM_EEE_SCHEMAS, withReference } from '../helpers/shared.js';

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

/** Our verdict, and a check that upstream's is the same (to run when the reference data is there). */
function verdict(doc: Record<string, unknown>, where: string): { valid: boolean; sameUpstream: () => void } {
  const type = typeOf(doc);
  const version = findVersion(type, String(doc.schema_version));
  assert.ok(version, `${where}: schema_version ${String(doc.schema_version)} unknown`);
  const { ours, upstream } = validators(version);
  const valid = ours(doc) as boolean;
  const sameUpstream = () => assert.equal(upstream!(doc), valid, `${where}: upstream verdict differs`);
  return { valid, sameUpstream };
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
  test(`example ${name} is ${invalid ? 'invalid' : 'valid'} as its name says`, async (t) => {
    const text = readFileSync(file, 'utf8');
    if (file.endsWith('.json')) {
      const v = verdict(JSON.parse(text), name);
      assert.equal(v.valid, !invalid);
      await withReference(
        t,
        UPSTREAM_EEE_SCHEMAS,
        'the upstream schema gives the same verdict',
        v.sameUpstream,
      );
      return;
    }
    const expectedBad = (/bad-lines-([\d-]+)/.exec(name)?.[1] ?? '').split('-').filter(Boolean).map(Number);
    assert.equal(invalid, expectedBad.length > 0, 'an invalid JSONL example names its bad lines');
    const lines = text
      .split('\n')
      .map((line, i) => ({ line, n: i + 1 }))
      .filter(({ line }) => line.trim() !== '')
      .map(({ line, n }) => ({ n, ...verdict(JSON.parse(line), `${name}:${n}`) }));
    assert.deepEqual(
      lines.filter((l) => !l.valid).map((l) => l.n),
      expectedBad,
    );
    await withReference(t, UPSTREAM_EEE_SCHEMAS, 'the upstream schema gives the same verdicts', () =>
      lines.forEach((l) => l.sameUpstream()),
    );
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
  // sample_hash as Python computes it (outside the project), from the samples file of the example:
  //   python3 -c 'import hashlib,json,sys; [print(r["sample_id"], hashlib.sha256(json.dumps({"raw":r["input"]["raw"],"reference":r["input"].get("reference") or []},sort_keys=True,separators=(",",":")).encode()).hexdigest()) for r in map(json.loads, open(sys.argv[1]))]' FILE
  const pythonHashes: Record<string, string> = {
    'arith-0001': '246265dee9162e815f233d352651c6fc6c4f658f78f0336f662e025c3d45fc02',
    'arith-0002': '85c4a1988f5f7000810588d01dc0f7f466e168fbe75fe7810569707ea0e8ff1e',
    'tools-0001': 'd9e021023936906429ab0decea6fd1282395a320e10ad63c157c13773b1dde5f',
  };
  assert.deepEqual(
    rows.map((r) => r.sample_id),
    Object.keys(pythonHashes),
  );
  for (const row of rows) {
    assert.equal(row.evaluation_id, aggregate.evaluation_id);
    assert.equal(row.model_id, aggregate.model_info.id);
    assert.ok(resultIds.has(row.evaluation_result_id), row.evaluation_result_id);
    assert.equal(row.sample_hash, pythonHashes[row.sample_id], row.sample_id);
    assert.equal(sampleHash(row.input), row.sample_hash, `${row.sample_id}: our sample_hash`);
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
