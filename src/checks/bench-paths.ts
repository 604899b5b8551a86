/** `validate` on a repository: the path policy applied to the benchmark output files among the validated files. */
import type { Diagnostic } from '../diagnostics.js';
import { hasLegacyKeys } from '../formats/bench-output/migrate.js';
import { JsonCache } from './json-cache.js';
import { Findings, WHOLE_FILE } from './report.js';
import { classifyInRepository } from './path-policy.js';

/** A benchmark output v1 document, or one of the legacy shapes it replaced. */
export function looksLikeBenchOutput(doc: unknown): boolean {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return false;
  const d = doc as Record<string, unknown>;
  if (d.schema_version === 'v1' && 'metadata' in d && 'results' in d) return true;
  return hasLegacyKeys(d);
}

export async function checkBenchOutputPaths(paths: string[], json = new JsonCache()): Promise<Diagnostic[]> {
  const findings = new Findings();
  for (const path of paths) {
    if (!path.endsWith('.json')) continue;
    // Files in no policy tree, or in an allowed place, need not be read (the verdict depends on the path only).
    const byPath = classifyInRepository(path);
    if (byPath === undefined || byPath.status === 'allowed') continue;
    const parsed = await json.get(path);
    if (!parsed?.ok) continue;
    const doc = parsed.value;
    if (!looksLikeBenchOutput(doc)) continue;
    const verdict = classifyInRepository(path, doc);
    if (verdict === undefined) continue;
    if (verdict.status === 'deprecated')
      findings.add(
        path,
        'bench.path-deprecated',
        `${verdict.path} matches the deprecated ${verdict.rule}; move it to ${verdict.canonical}`,
        WHOLE_FILE,
      );
    else if (verdict.status === 'unrecognised')
      findings.add(path, 'bench.path-unrecognised', `${verdict.path} is in no recognised location`, {
        ...WHOLE_FILE,
        severity: 'warning',
      });
  }
  return findings.diagnostics();
}
