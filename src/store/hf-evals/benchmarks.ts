/**
 * Which Hugging Face Hub benchmark dataset a stored benchmark is, as data: a benchmark name (its evaluation_name,
 * normalised: lower case, the last `/` component, runs of other characters as `_`) → the dataset id, the task id of
 * the dataset's eval.yaml, and the metric(s) to export in order of preference (the first one the result has wins;
 * no other metric of the benchmark is exported). `--benchmarks FILE` extends and overrides the built-in table.
 */
import { UsageError } from '../../errors.js';
import { readRegularFile } from '../../io/regular-file.js';
import { locatePointers, parseStrictJson, escapePointerSegment } from '../../io/strict-json.js';
import { isJsonObject } from '../../io/json-value.js';
import { HF_BENCHMARKS, type BenchmarkMapping } from '../../convert/hf-benchmarks.js';

export type { BenchmarkMapping };

type Table = ReadonlyMap<string, BenchmarkMapping>;
const BUILTIN = HF_BENCHMARKS;

/** A benchmark name as the table keys it. */
export function benchmarkKey(name: string): string {
  const last = name.slice(name.lastIndexOf('/') + 1);
  return last
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/**
 * A metric name as the table compares it: lower case, without lm-eval's `,filter` suffix or a leaderboard's
 * ` on <benchmark>` ("Accuracy on MMLU-PRO" → `accuracy`), runs of spaces and dashes as `_` ("Exact Match" →
 * `exact_match`).
 */
export function metricKey(name: string): string {
  const comma = name.indexOf(',');
  const bare = (comma === -1 ? name : name.slice(0, comma)).trim().toLowerCase();
  return bare
    .replace(/ on .*$/, '')
    .trim()
    .replace(/[\s-]+/g, '_');
}

export function builtinBenchmarks(): Map<string, BenchmarkMapping> {
  const out = new Map<string, BenchmarkMapping>();
  for (const [names, mapping] of BUILTIN) for (const n of names) out.set(benchmarkKey(n), mapping);
  return out;
}

/** The mapping of a stored benchmark name, or undefined. */
export function mappingOf(table: Table, benchmark: string): BenchmarkMapping | undefined {
  return table.get(benchmarkKey(benchmark));
}

const DATASET_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;
const KEYS = ['dataset_id', 'task_id', 'metric', 'revision', 'notes'];

/**
 * The built-in table with a `--benchmarks` file's entries over it. The file: a JSON object, benchmark name →
 * `{dataset_id, task_id, metric}` (metric a name or a list of names in order of preference; optional revision and
 * notes). A bad file is a UsageError with the file, line, column, JSON pointer and `usage.bad-benchmarks`.
 */
export async function readBenchmarks(path: string): Promise<Map<string, BenchmarkMapping>> {
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(path);
  } catch (error) {
    throw new UsageError('usage.bad-option', `--benchmarks ${path}: ${(error as Error).message}`);
  }
  const text = bytes.toString('utf8');
  const parsed = parseStrictJson(bytes);
  const issue = parsed.ok ? parsed.issues.find((i) => i.code === 'json.duplicate-key') : parsed.issues[0];
  if (!parsed.ok || issue)
    throw new UsageError(
      'usage.bad-benchmarks',
      `${path}:${issue ? `${issue.line}:${issue.column}: ${issue.message}` : '1:1: not valid JSON'}`,
    );
  const bad = (pointer: string, why: string): never => {
    const at = locatePointers(text, [pointer]).get(pointer) ?? { line: 1, column: 1 };
    throw new UsageError(
      'usage.bad-benchmarks',
      `${path}:${at.line}:${at.column}: ${pointer || '/'}: ${why}`,
    );
  };
  const value = parsed.value;
  if (!isJsonObject(value))
    return bad('', 'expected a JSON object: benchmark name → {dataset_id, task_id, metric}');
  const table = builtinBenchmarks();
  for (const [name, raw] of Object.entries(value)) {
    const at = `/${escapePointerSegment(name)}`;
    if (!isJsonObject(raw)) bad(at, 'expected an object {dataset_id, task_id, metric}');
    const e = raw as Record<string, unknown>;
    for (const k of Object.keys(e))
      if (!KEYS.includes(k))
        bad(`${at}/${escapePointerSegment(k)}`, `unknown key (expected ${KEYS.join(', ')})`);
    if (typeof e.dataset_id !== 'string' || !DATASET_ID.test(e.dataset_id))
      bad(`${at}/dataset_id`, 'expected a Hub dataset id "org/name"');
    if (typeof e.task_id !== 'string' || e.task_id.trim() === '')
      bad(`${at}/task_id`, 'expected a non-empty string');
    const metrics = typeof e.metric === 'string' ? [e.metric] : e.metric;
    if (
      !Array.isArray(metrics) ||
      metrics.length === 0 ||
      !metrics.every((m) => typeof m === 'string' && m.trim() !== '')
    )
      bad(`${at}/metric`, 'expected a metric name or a non-empty list of metric names');
    for (const k of ['revision', 'notes'] as const)
      if (e[k] !== undefined && (typeof e[k] !== 'string' || e[k] === ''))
        bad(`${at}/${k}`, 'expected a non-empty string');
    if (benchmarkKey(name) === '') bad(at, 'a benchmark name needs a letter or digit');
    table.set(benchmarkKey(name), {
      dataset_id: e.dataset_id as string,
      task_id: e.task_id as string,
      metrics: metrics as string[],
      ...(e.revision !== undefined ? { revision: e.revision as string } : {}),
      ...(e.notes !== undefined ? { notes: e.notes as string } : {}),
    });
  }
  return table;
}

/** The built-in table as rows, for the docs and `--help`. */
export function builtinRows(): { names: string[]; mapping: BenchmarkMapping }[] {
  return BUILTIN.map(([names, mapping]) => ({ names, mapping }));
}
