// Shared by the Inspect, HELM and promptfoo converter tests: convert into a temporary datastore, read what was
// written, validate it with our validator (all integrity checks) and with the upstream 0.3.0 schemas.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import {
  convertPaths,
  isConvertFailure,
  writeConverted,
  type ConvertedRecord,
} from '../../src/convert/index.js';
import type { ConvertOverrides, SourceId } from '../../src/convert/types.js';
import type { Json as Obj } from '../../src/io/json-value.js';
import { createAjv } from '../../src/validate/ajv.js';
import { cli } from '../helpers/cli.js';
import { reference, UPSTREAM_EEE_SCHEMAS, withReference } from '../helpers/shared.js';

export type { Obj };

export interface Written {
  record: ConvertedRecord;
  aggregate: Obj;
  rows: Obj[];
  /** The bytes of both files, for byte-equality checks. */
  bytes: string;
}

export async function tempRoot(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'evalkit-convert-'));
}

/** Converts the paths into `root` and reads back each written pair. Failures throw. */
export async function convertInto(
  root: string,
  paths: string[],
  options: { from?: SourceId | 'auto'; overrides?: ConvertOverrides } = {},
): Promise<Written[]> {
  const out: Written[] = [];
  for await (const item of convertPaths(paths, options)) {
    if (isConvertFailure(item)) throw item.error;
    const outcome = await writeConverted(item, root, { force: true });
    const aggregateText = await readFile(outcome.aggregatePath, 'utf8');
    const samplesText = outcome.samplesPath ? await readFile(outcome.samplesPath, 'utf8') : '';
    out.push({
      record: item,
      aggregate: JSON.parse(aggregateText),
      rows: samplesText
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l)),
      bytes: aggregateText + '\n---\n' + samplesText,
    });
  }
  return out;
}

/** Our validator over the whole tree, with the integrity checks: no error, no warning about the records. */
export async function assertValidTree(root: string): Promise<void> {
  const { code, stdout, stderr } = await cli([
    'validate',
    root,
    '--format',
    'json',
    '--no-progress',
    '--jobs',
    '1',
  ]);
  assert.equal(code, 0, `validate failed:\n${stdout}\n${stderr}`);
  const report = JSON.parse(stdout);
  assert.equal(report.summary.errors, 0);
  assert.equal(report.summary.warnings, 0, stdout.slice(0, 2000));
  assert.ok(report.summary.documents > 0);
  const diagnostics = JSON.stringify(report.files);
  assert.ok(!/"severity":"(error|warning)"/.test(diagnostics), diagnostics.slice(0, 2000));
}

let upstream: { aggregate: ValidateFunction; instance: ValidateFunction } | undefined;

/** The upstream EEE 0.3.0 JSON Schemas (reference data), compiled once. */
export async function upstreamValidators(): Promise<{
  aggregate: ValidateFunction;
  instance: ValidateFunction;
}> {
  if (upstream) return upstream;
  const load = async (name: string) =>
    JSON.parse(await readFile(reference(`eee/schemas/v0.3.0/${name}`)!, 'utf8')) as object;
  upstream = {
    aggregate: createAjv('draft-07').compile(await load('eval.schema.json')),
    instance: createAjv('draft-07').compile(await load('instance_level_eval.schema.json')),
  };
  return upstream;
}

/** Every written pair under the upstream 0.3.0 schemas (a visible skipped subtest of t without the reference data). */
export async function assertUpstreamValid(t: TestContext, written: Written[]): Promise<void> {
  await withReference(
    t,
    UPSTREAM_EEE_SCHEMAS,
    'the upstream EEE 0.3.0 schemas accept the written records',
    async () => {
      const v = await upstreamValidators();
      for (const w of written) {
        assert.ok(v.aggregate(w.aggregate), `${w.record.sourcePath}: ${JSON.stringify(v.aggregate.errors)}`);
        w.rows.forEach((row, i) =>
          assert.ok(
            v.instance(row),
            `${w.record.sourcePath} row ${i + 1}: ${JSON.stringify(v.instance.errors)}`,
          ),
        );
      }
    },
  );
}

/** Every file under a folder (recursive), for listing what a conversion wrote. */
export async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p)));
    else out.push(p);
  }
  return out.sort();
}

export async function withRoot<T>(fn: (root: string) => Promise<T>): Promise<T> {
  const root = await tempRoot();
  try {
    return await fn(root);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** The result an instance row names. */
export function resultOf(aggregate: Obj, row: Obj): Obj {
  const r = aggregate.evaluation_results.find(
    (x: Obj) => x.evaluation_result_id === row.evaluation_result_id,
  );
  assert.ok(r, `row ${row.sample_id} names an unknown result ${row.evaluation_result_id}`);
  return r;
}

export const resultById = (aggregate: Obj, id: string): Obj => {
  const r = aggregate.evaluation_results.find((x: Obj) => x.evaluation_result_id === id);
  assert.ok(
    r,
    `no result ${id} among ${aggregate.evaluation_results.map((x: Obj) => x.evaluation_result_id)}`,
  );
  return r;
};
