// Document types infereval / retrieval / bench.output: validation throughput of the TypeBox-defined schema beside
// the upstream infereval schema compiled by the same Ajv (baseline), and the cost of the cross-field rules and of
// normalisation beside JSON.parse of the same document. The issue sets no speed target for these; the expectation
// is parity with the upstream schema (ratio ≈ 1) and rules + normalisation no slower than parsing (ratio ≥ 1).
// Rounds are interleaved and the median taken, because the machine is shared and noisy.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { medianRates } from './_rates.js';
import { createAjv } from '../src/validate/ajv.js';
import { BenchmarkSchema, benchmarkRules, normaliseBenchmark } from '../src/formats/infereval/index.js';

const root = resolve(fileURLToPath(import.meta.url), '..', '..');
const scale = Math.max(1, Number(process.env.BENCH_SCALE ?? '1') || 1);

/** The example benchmark grown to `items` items (copies with fresh ids), as text. */
function grownBenchmark(items: number): string {
  const doc = JSON.parse(readFileSync(join(root, 'examples/infereval/benchmark.json'), 'utf8'));
  const base = doc.items;
  doc.items = Array.from({ length: items }, (_, i) => ({ ...base[i % base.length], id: `item-${i}` }));
  delete doc.factor_constraints;
  doc.regularities = [];
  return JSON.stringify(doc);
}

export async function run(): Promise<void> {
  const text = grownBenchmark(2000 * scale);
  const doc = JSON.parse(text);
  const ours = createAjv('2020-12').compile(BenchmarkSchema);
  const upstreamPath = resolve(
    root,
    '..',
    'shared',
    'reference',
    'infereval',
    'schemas',
    'benchmark.schema.json',
  );
  const upstream = existsSync(upstreamPath)
    ? createAjv('2020-12').compile(JSON.parse(readFileSync(upstreamPath, 'utf8')))
    : undefined;
  const tasks: Record<string, () => void> = {
    parse: () => JSON.parse(text),
    ours: () => ours(doc),
    rules: () => benchmarkRules.forEach((rule) => rule.check(doc)),
    normalise: () => normaliseBenchmark(doc),
  };
  if (upstream) tasks.upstream = () => upstream(doc);
  const rate = medianRates(tasks, 20, 5);
  const line = (label: string, value: number, baseLabel: string, base: number) =>
    console.log(
      `${label.padEnd(36)} ${value.toFixed(1).padStart(8)} /s  vs ${baseLabel.padEnd(16)} ${base.toFixed(1).padStart(8)} /s  ratio ${(value / base).toFixed(2)}`,
    );
  console.log(`benchmark with ${doc.items.length} items, ${(text.length / 1e6).toFixed(2)} MB`);
  if (upstream) line('schema validation (TypeBox schema)', rate.ours, 'upstream schema', rate.upstream);
  else line('schema validation (TypeBox schema)', rate.ours, 'JSON.parse', rate.parse);
  console.log('  target: parity with the upstream schema, ratio ≈ 1 (the issue sets none)');
  line(`all ${benchmarkRules.length} cross-field rules`, rate.rules, 'JSON.parse', rate.parse);
  line('normaliseBenchmark', rate.normalise, 'JSON.parse', rate.parse);
  console.log('  target: rules and normalisation no slower than parsing, ratio ≥ 1');
}
