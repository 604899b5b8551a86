/** `validate --benchmark B`: each infereval evaluation's benchmark_hash (and benchmark_id) against benchmark B. */
import { readRegularFile } from '../io/regular-file.js';
import type { Diagnostic } from '../diagnostics.js';
import { DataError, IoError, UsageError } from '../errors.js';
import { benchmarkHash } from '../formats/infereval/hash.js';
import { isJsonObject } from '../io/json-value.js';
import { parseStrictJson } from '../io/strict-json.js';
import { JsonCache } from './json-cache.js';
import { Findings } from './report.js';

/** An infereval evaluation (η) document. */
export function isInferevalEvaluation(doc: unknown): doc is Record<string, unknown> {
  return isJsonObject(doc) && 'benchmark_id' in doc && ('endorsement_config' in doc || 'items' in doc);
}

/** Reads a benchmark file and returns its id and hash; throws IoError / UsageError when it cannot. */
export async function loadBenchmarkHash(benchmarkPath: string): Promise<{ id: unknown; hash: string }> {
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(benchmarkPath);
  } catch (error) {
    const e = error as IoError;
    const reason = e.code === 'io.not-found' ? 'no such file' : e.message.replace(/^cannot read [^:]*: /, '');
    throw new IoError(e.code, `cannot read benchmark ${benchmarkPath}: ${reason}`);
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

export interface BenchmarkMismatch {
  code: 'infereval.benchmark-id' | 'infereval.benchmark-hash';
  severity: 'error' | 'warning';
  pointer: string;
  message: string;
}

/**
 * How an evaluation's benchmark_id and benchmark_hash disagree with a benchmark's id and hash: the one comparison
 * behind `validate --benchmark` and every command that reads an evaluation with its benchmark. A missing hash is a
 * warning (older evaluations record none); a different id or hash is an error naming both values.
 */
export function benchmarkMismatches(
  evaluation: { benchmark_id?: unknown; benchmark_hash?: unknown },
  benchmark: { id: unknown; hash: string },
): BenchmarkMismatch[] {
  const out: BenchmarkMismatch[] = [];
  if (evaluation.benchmark_id !== benchmark.id)
    out.push({
      code: 'infereval.benchmark-id',
      severity: 'error',
      pointer: '/benchmark_id',
      message: `benchmark_id ${JSON.stringify(evaluation.benchmark_id)} is not the benchmark's id ${JSON.stringify(benchmark.id)}`,
    });
  if (evaluation.benchmark_hash === undefined || evaluation.benchmark_hash === null)
    out.push({
      code: 'infereval.benchmark-hash',
      severity: 'warning',
      pointer: '',
      message: `the evaluation records no benchmark_hash, so it cannot be tied to ${benchmark.hash}`,
    });
  else if (evaluation.benchmark_hash !== benchmark.hash)
    out.push({
      code: 'infereval.benchmark-hash',
      severity: 'error',
      pointer: '/benchmark_hash',
      message: `benchmark_hash ${String(evaluation.benchmark_hash)} differs from the benchmark's ${benchmark.hash}`,
    });
  return out;
}

/**
 * Throws a DataError when the evaluation was not run on this benchmark (different id, or a recorded hash that is
 * not the benchmark's), naming both values and both files.
 */
export function assertEvaluationOfBenchmark(
  evaluation: { benchmark_id?: unknown; benchmark_hash?: unknown },
  benchmark: Record<string, unknown>,
  files: { evaluation: string; benchmark: string },
): void {
  const errors = benchmarkMismatches(evaluation, {
    id: benchmark.id,
    hash: benchmarkHash(benchmark),
  }).filter((m) => m.severity === 'error');
  if (errors.length === 0) return;
  throw new DataError(
    errors[0].code,
    `${files.evaluation} was not run on ${files.benchmark}: ${errors.map((e) => e.message).join('; ')}`,
  );
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
    for (const m of benchmarkMismatches(doc, benchmark))
      findings.add(path, m.code, m.message, { text: parsed.text, pointer: m.pointer, severity: m.severity });
  }
  return findings.diagnostics();
}
