// bench.output v1: the schema (from the published description), the bench.error-needs-message rule, detection,
// and the examples.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { documentTypes } from '../../src/formats/registry.js';
import {
  benchOutputType,
  BenchOutputSchema,
  errorNeedsMessage,
  looksLikeBenchOutput,
} from '../../src/formats/bench-output/index.js';
import { createAjv } from '../../src/validate/ajv.js';
import { projectRoot } from '../helpers/shared.js';

const dir = join(projectRoot, 'examples', 'bench-output');
const read = (rel: string): any => JSON.parse(readFileSync(join(dir, rel), 'utf8'));
const validate = createAjv('2020-12').compile(BenchOutputSchema);

function jsonFiles(d: string): string[] {
  return readdirSync(d)
    .sort()
    .flatMap((n) =>
      statSync(join(d, n)).isDirectory() ? jsonFiles(join(d, n)) : n.endsWith('.json') ? [join(d, n)] : [],
    );
}

/** Schema errors as [pointer, keyword], or rule codes when the schema passed. */
function check(doc: unknown): string[] {
  if (!validate(doc)) return (validate.errors ?? []).map((e) => `${e.instancePath} schema.${e.keyword}`);
  return benchOutputType.versions[0].rules!.flatMap((r) => r.check(doc)).map((i) => `${i.pointer} ${i.code}`);
}

const minimal = (): any => ({
  $schema: 'outputs/schemas/benchmark_schema.json',
  schema_version: 'v1',
  metadata: {
    benchmark: { name: 'mmlu', task: 'all' },
    model: { name: 'gpt-4.1-mini', provider: 'openai' },
    run: { id: '2025-12-22T18:00:00Z_001', started_at: '2025-12-22T18:00:00Z' },
  },
  results: { status: 'ok', metrics: { accuracy: 0.712 } },
});

describe('bench.output v1 schema', () => {
  test('the minimal document of the published description is valid', () => {
    assert.deepEqual(check(minimal()), []);
  });

  test('required fields, enums and types', () => {
    const cases: [string, (d: any) => void, string][] = [
      ['no $schema', (d) => delete d.$schema, ' schema.required'],
      ['schema_version v2', (d) => (d.schema_version = 'v2'), '/schema_version schema.const'],
      ['no model provider', (d) => delete d.metadata.model.provider, '/metadata/model schema.required'],
      ['no run id', (d) => delete d.metadata.run.id, '/metadata/run schema.required'],
      ['no started_at', (d) => delete d.metadata.run.started_at, '/metadata/run schema.required'],
      ['no benchmark name', (d) => delete d.metadata.benchmark.name, '/metadata/benchmark schema.required'],
      ['status unknown', (d) => (d.results.status = 'done'), '/results/status schema.enum'],
      [
        'metric not a number',
        (d) => (d.results.metrics.accuracy = '71%'),
        '/results/metrics/accuracy schema.type',
      ],
      ['no metrics', (d) => delete d.results.metrics, '/results schema.required'],
      ['top-level key reserved', (d) => (d.extra = 1), ' schema.additionalProperties'],
      ['tags not strings', (d) => (d.metadata.tags = [1]), '/metadata/tags/0 schema.type'],
      ['error without message', (d) => (d.results.error = { type: 'X' }), '/results/error schema.required'],
    ];
    for (const [label, patch, expected] of cases) {
      const d = minimal();
      patch(d);
      assert.ok(check(d).includes(expected), `${label}: ${check(d).join('; ')}`);
    }
  });

  test('nested objects accept further keys (only the top level is reserved)', () => {
    const d = minimal();
    d.metadata.run.ci_job = 'nightly-42';
    d.metadata.model.quantisation = 'int8';
    d.results.details = { anything: [1, 2] };
    d.metadata.extra_provenance = { by: 'me' };
    assert.deepEqual(check(d), []);
  });
});

describe('bench.error-needs-message', () => {
  test('ok runs pass; error runs pass only with a non-empty message', () => {
    assert.deepEqual(errorNeedsMessage.check(minimal()), []);
    const withMessage = minimal();
    withMessage.results.status = 'error';
    withMessage.results.error = { message: 'CUDA out of memory' };
    assert.deepEqual(errorNeedsMessage.check(withMessage), []);
  });

  test('status error without an error object', () => {
    const d = minimal();
    d.results.status = 'error';
    const issues = errorNeedsMessage.check(d);
    assert.equal(issues.length, 1);
    assert.equal(issues[0].code, 'bench.error-needs-message');
    assert.equal(issues[0].pointer, '/results');
    assert.match(issues[0].message, /results\.error/);
  });

  test('status error with a blank message', () => {
    const d = minimal();
    d.results.status = 'error';
    d.results.error = { message: '  ' };
    assert.deepEqual(
      errorNeedsMessage.check(d).map((i) => i.pointer),
      ['/results/error/message'],
    );
  });
});

describe('bench.output detection', () => {
  test('v1 documents, and broken ones that still carry $schema or metadata+results', () => {
    assert.ok(looksLikeBenchOutput(minimal()));
    assert.ok(looksLikeBenchOutput({ $schema: 'x', results: 1 }));
    assert.ok(looksLikeBenchOutput({ metadata: {}, results: {} }));
    assert.ok(!looksLikeBenchOutput({ $schema: 'x' }));
    assert.ok(!looksLikeBenchOutput({ config: {}, results: {} }));
  });

  test('type data: id, family, v1, 2020-12', () => {
    assert.equal(benchOutputType.id, 'bench.output');
    assert.equal(benchOutputType.family, 'bench');
    assert.deepEqual(
      benchOutputType.versions.map((v) => [v.version, v.dialect, v.schemaVersionValues]),
      [['v1', '2020-12', ['v1']]],
    );
  });
});

describe('examples/bench-output', () => {
  test('every file under outputs/ is valid v1 and detected as bench.output only', () => {
    const files = jsonFiles(join(dir, 'outputs'));
    assert.ok(files.length >= 3);
    for (const f of files) {
      const doc = JSON.parse(readFileSync(f, 'utf8'));
      assert.deepEqual(check(doc), [], relative(dir, f));
      assert.deepEqual(
        documentTypes.filter((t) => t.looksLike(doc)).map((t) => t.id),
        ['bench.output'],
      );
    }
  });

  test('the invalid examples fail as their README says', () => {
    assert.deepEqual(check(read('invalid/error-without-message.json')), [
      '/results bench.error-needs-message',
    ]);
    assert.deepEqual(check(read('invalid/missing-and-wrong-fields.json')).sort(), [
      ' schema.additionalProperties',
      '/metadata/model schema.required',
      '/metadata/run schema.required',
      '/results/metrics/accuracy schema.type',
      '/results/status schema.enum',
    ]);
  });

  test('the legacy files are not v1', () => {
    for (const f of ['legacy/results.json', 'legacy/metrics.json']) assert.ok(!validate(read(f)), f);
  });
});

test('a legacy benchmark output is not detected as a type, and the error says how to migrate it', async () => {
  const { validateValue } = await import('../../src/validate/index.js');
  const legacy = validateValue(read('legacy/results.json'));
  assert.equal(legacy.valid, false);
  assert.equal(legacy.diagnostics[0].code, 'detect.unknown-type');
  assert.match(legacy.diagnostics[0].message, /legacy benchmark output.*evalkit migrate/);
  // A document that is merely unknown gets the list of types instead.
  const unknown = validateValue({ hello: 'world' });
  assert.doesNotMatch(unknown.diagnostics[0].message, /migrate/);
  assert.match(unknown.diagnostics[0].message, /expected one of/);
});
