// Shared by the converter tests: convert paths into a fresh datastore, read what was written, and check it with
// our validator (all integrity checks) and the upstream EEE 0.3.0 schemas.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { convertPaths, isConvertFailure, type ConvertFailure } from '../../src/convert/index.js';
import type { ConvertedRecord, ConvertOverrides, SourceId } from '../../src/convert/types.js';
import { writeConverted, type WriteOutcome } from '../../src/convert/write.js';
import { validatePaths } from '../../src/validate/index.js';
import { aggregatePairs, instancePairs } from '../formats-eee/corpus.js';
import { UPSTREAM_EEE_SCHEMAS, withReference } from '../helpers/shared.js';

export const tempRoot = (prefix = 'evalkit-convert-'): string => mkdtempSync(join(tmpdir(), prefix));

export interface Converted {
  root: string;
  written: { record: ConvertedRecord; outcome: WriteOutcome }[];
  failures: ConvertFailure[];
  skipped: { path: string; reason: string }[];
}

/** Converts and writes everything under `paths` into `root` (a new temp folder by default). */
export async function convertInto(
  paths: string[],
  options: { root?: string; from?: SourceId | 'auto'; overrides?: ConvertOverrides; force?: boolean } = {},
): Promise<Converted> {
  const root = options.root ?? tempRoot();
  const out: Converted = { root, written: [], failures: [], skipped: [] };
  for await (const item of convertPaths(paths, {
    from: options.from,
    overrides: options.overrides,
    onSkip: (path, reason) => out.skipped.push({ path, reason }),
  })) {
    if (isConvertFailure(item)) {
      out.failures.push(item);
      continue;
    }
    try {
      out.written.push({ record: item, outcome: await writeConverted(item, root, { force: options.force }) });
    } catch (error) {
      out.failures.push({ sourcePath: item.sourcePath, source: item.source, error: error as Error });
    }
  }
  return out;
}

/** Every file under a folder, relative path → bytes. */
export function treeBytes(root: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(root, p), readFileSync(p));
    }
  };
  walk(root);
  return out;
}

export const readJson = (path: string): any => JSON.parse(readFileSync(path, 'utf8'));
export const readRows = (path: string): any[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));

/** The written aggregate (parsed) and its rows. */
export function load(root: string, record: ConvertedRecord): { aggregate: any; rows: any[] } {
  const aggregate = readJson(join(root, record.aggregatePath));
  const rows = record.samplesPath ? readRows(join(root, record.samplesPath)) : [];
  return { aggregate, rows };
}

/** Our validator with every integrity check: no error and no warning anywhere under root. */
export async function assertValidTree(root: string): Promise<void> {
  const result = await validatePaths([root], { jobs: 1 });
  const problems = result.files.flatMap((f) =>
    f.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.severity} ${d.code} ${d.message}`),
  );
  assert.deepEqual(problems, [], 'evalkit validate found problems');
  assert.ok(result.summary.documents > 0);
}

let upstream: { aggregate: (d: unknown) => boolean; instance: (d: unknown) => boolean } | undefined;

/**
 * The upstream EEE 0.3.0 schemas accept the aggregate and every row; without the reference data this check shows
 * as a skipped subtest of t.
 */
export async function assertUpstreamValid(
  t: TestContext,
  aggregate: unknown,
  rows: unknown[],
): Promise<void> {
  await withReference(
    t,
    UPSTREAM_EEE_SCHEMAS,
    'the upstream EEE 0.3.0 schemas accept the record and its rows',
    () => {
      if (!upstream) {
        const a = aggregatePairs().get('0.3.0')!.upstream;
        const i = instancePairs().get('0.3.0')!.upstream;
        upstream = {
          aggregate: (d) => a(d) as boolean,
          instance: (d) => {
            const ok = i(d) as boolean;
            if (!ok) console.error(JSON.stringify(i.errors).slice(0, 2000));
            return ok;
          },
        };
      }
      assert.ok(upstream.aggregate(aggregate), 'the upstream 0.3.0 aggregate schema rejects the record');
      rows.forEach((row, n) =>
        assert.ok(upstream!.instance(row), `the upstream instance schema rejects row ${n + 1}`),
      );
    },
  );
}

/** The non-blank lines of a file. */
export const lineCount = (path: string): number =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '').length;
