// EEE document types: validation throughput of our TypeBox-defined schemas beside the upstream schemas of the same
// version compiled by the same Ajv (the baseline), and beside JSON.parse of the same text. The issue sets no speed
// target for the schemas; the expectation is parity with upstream (ratio ≈ 1). Rounds are interleaved and the
// median taken, because the machine is shared and noisy. BENCH_SCALE multiplies the document sizes.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { medianRates } from './_rates.js';
import { EeeAggregateSchema030, EeeInstanceSchema030 } from '../src/formats/eee/index.js';
import { createAjv } from '../src/validate/ajv.js';

const root = resolve(fileURLToPath(import.meta.url), '..', '..');
const reference = resolve(root, '..', 'shared', 'reference', 'eee', 'schemas', 'v0.3.0');
const scale = Math.max(1, Number(process.env.BENCH_SCALE ?? '1') || 1);
const example = join(
  root,
  'examples/eee/data/demo-bench/acme/tiny-model-1b/7c2f4e1a-93b5-4d6e-8a0f-2b1c3d4e5f60',
);

/** The example aggregate grown to `results` evaluation results. */
function grownAggregate(results: number): string {
  const doc = JSON.parse(readFileSync(`${example}.json`, 'utf8'));
  const base = doc.evaluation_results;
  doc.evaluation_results = Array.from({ length: results }, (_, i) => ({
    ...base[i % base.length],
    evaluation_result_id: `result-${i}`,
  }));
  return JSON.stringify(doc);
}

function report(label: string, text: string, oursSchema: object, upstreamFile: string, calls: number): void {
  const doc = JSON.parse(text);
  const ours = createAjv('draft-07').compile(JSON.parse(JSON.stringify(oursSchema)));
  const upstreamPath = join(reference, upstreamFile);
  const upstream = existsSync(upstreamPath)
    ? createAjv('draft-07').compile(JSON.parse(readFileSync(upstreamPath, 'utf8')))
    : undefined;
  if (!ours(doc)) throw new Error(`${label}: the benchmark document should be valid`);
  const tasks: Record<string, () => void> = {
    'JSON.parse': () => JSON.parse(text),
    ours: () => ours(doc),
  };
  if (upstream) tasks.upstream = () => upstream(doc);
  const rates = medianRates(tasks, calls, 5);
  const kb = (text.length / 1024).toFixed(1);
  console.log(`${label} (${kb} KiB):`);
  console.log(`  JSON.parse          ${rates['JSON.parse'].toFixed(0).padStart(9)} docs/s`);
  console.log(`  our schema          ${rates.ours.toFixed(0).padStart(9)} docs/s`);
  if (upstream) {
    console.log(`  upstream schema     ${rates.upstream.toFixed(0).padStart(9)} docs/s (baseline)`);
    console.log(
      `  ours / upstream     ${(rates.ours / rates.upstream).toFixed(2).padStart(9)} (target ≈ 1.0)`,
    );
  } else console.log('  upstream schema: reference data absent, no baseline');
  console.log(
    `  ours / JSON.parse   ${(rates.ours / rates['JSON.parse']).toFixed(2).padStart(9)} (validation vs parsing)`,
  );
}

export async function run(): Promise<void> {
  report(
    'aggregate 0.3.0, 200 results',
    grownAggregate(200 * scale),
    EeeAggregateSchema030,
    'eval.schema.json',
    50,
  );
  const row = readFileSync(`${example}_samples.jsonl`, 'utf8').split('\n')[2];
  report(
    'instance 0.3.0, agentic row',
    row,
    EeeInstanceSchema030,
    'instance_level_eval.schema.json',
    5000 * scale,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
