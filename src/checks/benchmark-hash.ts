/** `validate --benchmark B`: each infereval evaluation's benchmark_hash (and benchmark_id) against benchmark B. */
import { readRegularFile } from '../io/regular-file.js';
import type { Diagnostic } from '../diagnostics.js';
import { IoError, UsageError } from '../errors.js';
import { benchmarkHash } from '../formats/infereval/hash.js';
import { parseStrictJson } from '../io/strict-json.js';
import { JsonCache } from './json-cache.js';
import { Findings } from './report.js';

/** An infereval evaluation (η) document. */
export function isInferevalEvaluation(doc: unknown): doc is Record<string, unknown> {
  return (
    typeof doc === 'object' &&
    doc !== null &&
    !Array.isArray(doc) &&
    'benchmark_id' in doc &&
    ('endorsement_config' in doc || 'items' in doc)
  );
}

/** Reads a benchmark file and returns its id and hash; throws IoError / UsageError when it cannot. */
export async function loadBenchmarkHash(benchmarkPath: string): Promise<{ id: unknown; hash: string }> {
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(benchmarkPath);
  } catch (error) {
    const e = error as IoError;
    throw new IoError(e.code, `benchmark: ${e.message}`);
  }
  const parsed = parseStrictJson(bytes);
  const doc = parsed.value;
  if (!parsed.ok || typeof doc !== 'object' || doc === null || Array.isArray(doc) || !('items' in doc))
    throw new UsageError(
      'benchmark.invalid',
      `${benchmarkPath} is not an infereval benchmark (a JSON object with items)`,
    );
  return { id: (doc as Record<string, unknown>).id, hash: benchmarkHash(doc as Record<string, unknown>) };
}

export async function checkBenchmarkHashes(
  paths: string[],
  benchmarkPath: string,
  json = new JsonCache(),
): Promise<Diagnostic[]> {
  const benchmark = await loadBenchmarkHash(benchmarkPath);
  const findings = new Findings();
  for (const path of paths) {
    if (!path.endsWith('.json')) continue;
    const parsed = await json.get(path);
    if (!parsed?.ok || !isInferevalEvaluation(parsed.value)) continue;
    const doc = parsed.value;
    const at = (pointer: string) => ({ text: parsed.text, pointer });
    if (doc.benchmark_id !== benchmark.id)
      findings.add(
        path,
        'infereval.benchmark-id',
        `benchmark_id ${JSON.stringify(doc.benchmark_id)} is not the benchmark's id ${JSON.stringify(benchmark.id)}`,
        at('/benchmark_id'),
      );
    if (doc.benchmark_hash === undefined || doc.benchmark_hash === null)
      findings.add(
        path,
        'infereval.benchmark-hash',
        `the evaluation records no benchmark_hash, so it cannot be tied to ${benchmark.hash}`,
        { ...at(''), severity: 'warning' },
      );
    else if (doc.benchmark_hash !== benchmark.hash)
      findings.add(
        path,
        'infereval.benchmark-hash',
        `benchmark_hash ${String(doc.benchmark_hash)} differs from the benchmark's ${benchmark.hash}`,
        at('/benchmark_hash'),
      );
  }
  return findings.diagnostics();
}
