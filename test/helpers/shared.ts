// Locating the read-only reference data in ../shared/reference. A user's clone has none: tests then skip
// with a message saying so, instead of failing or imitating the data.
import { existsSync, readdirSync, statSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const referenceRoot = resolve(projectRoot, '..', 'shared', 'reference');

/** Absolute path of a file under ../shared/reference, or undefined when the reference data is absent. */
export function reference(relativePath = ''): string | undefined {
  const path = join(referenceRoot, relativePath);
  return existsSync(path) ? path : undefined;
}

/** The `skip` option for node:test when the reference data is absent. */
export function skipWithoutReference(relativePath = ''): string | false {
  return reference(relativePath) ? false : `reference data not found at ${join(referenceRoot, relativePath)}`;
}

/** The corpora of real outputs in the wild, in order; each holds `<tool>/<run>/` folders. */
export const WILD_SETS = ['peers-wild', 'peers-wild-2'] as const;

/** Every `<set>/<tool>/<run>` folder of the wild corpora present, for one tool folder name (sorted, absolute). */
export function wildRunFolders(tool: string): string[] {
  const out: string[] = [];
  for (const set of WILD_SETS) {
    const dir = reference(`${set}/${tool}`);
    if (dir === undefined) continue;
    for (const run of readdirSync(dir).sort())
      if (statSync(join(dir, run)).isDirectory()) out.push(join(dir, run));
  }
  return out;
}

const shownSkips = new WeakMap<TestContext, Set<string>>();

/**
 * Runs a check that needs the reference data at `relativePath`; without it the check is not silently dropped but
 * shown as a skipped subtest of `t` named `name` (once per test, however often the check is asked for), so that
 * the reporter and the skip list at the end of scripts/run-tests.mjs say which check did not run and why.
 */
export async function withReference(
  t: TestContext,
  relativePath: string,
  name: string,
  check: () => void | Promise<void>,
): Promise<void> {
  const reason = skipWithoutReference(relativePath);
  if (!reason) return check();
  const shown = shownSkips.get(t) ?? new Set<string>();
  shownSkips.set(t, shown);
  if (shown.has(name)) return;
  shown.add(name);
  await t.test(name, { skip: reason }, () => {});
}

/** The upstream EEE JSON Schemas (every version) under the reference root. */
export const UPSTREAM_EEE_SCHEMAS = 'eee/schemas';
