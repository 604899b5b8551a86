// Integrity checks, migration and canonical hashes, each beside a baseline measured in the same run:
//   tree checks      vs reading and JSON-parsing the same files (the least any check must do);
//   migrate -o DIR   vs copying the same tree (cpSync);
//   benchmark_hash   vs JSON.parse + JSON.stringify of the same benchmark.
// The issue sets no speed target for these; the ratios are printed to spot regressions.
// BENCH_SCALE (default 1) multiplies the number of records and rows.
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTreeChecks } from '../src/checks/index.js';
import { sampleHash } from '../src/formats/eee/sample-hash.js';
import { benchmarkHash } from '../src/formats/infereval/hash.js';
import { migratePaths } from '../src/migrate/index.js';

const scale = Math.max(1, Number(process.env.BENCH_SCALE ?? 1));

function uuid(i: number): string {
  const h = createHash('sha256').update(String(i)).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A synthetic datastore: `records` aggregates (0.2.0 or 0.3.0) with `rows` instance rows each. */
function makeTree(root: string, records: number, rows: number, version: '0.2.0' | '0.3.0'): string[] {
  const files: string[] = [];
  for (let i = 0; i < records; i++) {
    const id = uuid(i);
    const dir = join(root, 'data', 'bench', `dev${i % 10}`, `model${i}`);
    mkdirSync(dir, { recursive: true });
    const lines: string[] = [];
    for (let j = 0; j < rows; j++) {
      const input = { raw: `Question ${j} of record ${i}: what is ${j} + ${i}?`, reference: [String(i + j)] };
      lines.push(
        JSON.stringify({
          schema_version: version === '0.3.0' ? '0.3.0' : 'instance_level_eval_0.2.0',
          evaluation_id: `bench/${i}`,
          model_id: `dev${i % 10}/model${i}`,
          evaluation_name: 'bench',
          sample_id: `s${j}`,
          sample_hash: sampleHash(input),
          interaction_type: 'single_turn',
          input,
          output: { raw: [String(i + j)] },
          answer_attribution: [],
          evaluation: { score: 1, is_correct: true },
        }),
      );
    }
    const samples = `${lines.join('\n')}\n`;
    const samplesPath = join(dir, `${id}_samples.jsonl`);
    writeFileSync(samplesPath, samples);
    const modelDetails =
      version === '0.3.0' ? { deployment_type: 'unknown', model_availability: 'unknown' } : { params: 7 };
    const aggregate = {
      schema_version: version,
      evaluation_id: `bench/${i}`,
      retrieved_timestamp: '1700000000',
      source_metadata: {
        source_type: 'evaluation_run',
        source_organization_name: 'x',
        evaluator_relationship: 'other',
      },
      ...(version === '0.3.0' ? { eval_library: { name: 'x', version: '1' } } : {}),
      model_info: { name: `model${i}`, id: `dev${i % 10}/model${i}`, additional_details: modelDetails },
      evaluation_results: [
        {
          evaluation_name: 'bench',
          source_data: { dataset_name: 'bench', source_type: 'url', url: ['https://example.invalid'] },
          metric_config: { lower_is_better: false, score_type: 'continuous', min_score: 0, max_score: 1 },
          score_details: { score: (i % 100) / 100 },
        },
      ],
      detailed_evaluation_results: {
        format: 'jsonl',
        file_path: `data/bench/dev${i % 10}/model${i}/${id}_samples.jsonl`,
        hash_algorithm: 'sha256',
        checksum: createHash('sha256').update(samples).digest('hex'),
        total_rows: rows,
      },
    };
    const aggregatePath = join(dir, `${id}.json`);
    writeFileSync(aggregatePath, JSON.stringify(aggregate, null, 2));
    files.push(aggregatePath, samplesPath);
  }
  return files;
}

async function time(fn: () => unknown | Promise<unknown>, repeat = 1): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < repeat; i++) await fn();
  return (performance.now() - started) / repeat;
}

function readAndParse(files: string[]): void {
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    if (f.endsWith('.jsonl')) for (const line of text.split('\n')) line && JSON.parse(line);
    else JSON.parse(text);
  }
}

export async function run(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'evalkit-bench-integrity-'));
  try {
    const records = 100 * scale;
    const rows = 200;
    const files = makeTree(join(root, 'current'), records, rows, '0.3.0');
    const baseline = await time(() => readAndParse(files), 3);
    let findings = 0;
    const checks = await time(async () => (findings = (await runTreeChecks(files)).length), 3);
    console.log(
      `tree checks, ${records} records × ${rows} rows: ${checks.toFixed(0)} ms (${findings} findings) vs read+parse ${baseline.toFixed(0)} ms → ${(checks / baseline).toFixed(2)}× (no target in the issue)`,
    );

    const legacyFiles = makeTree(join(root, 'legacy'), records, rows, '0.2.0');
    const copy = await time(() => {
      rmSync(join(root, 'copy'), { recursive: true, force: true });
      cpSync(join(root, 'legacy'), join(root, 'copy'), { recursive: true });
    });
    let migrated = 0;
    const migrate = await time(async () => {
      rmSync(join(root, 'out'), { recursive: true, force: true });
      migrated = (await migratePaths([join(root, 'legacy')], { outDir: join(root, 'out') })).summary.migrated;
    });
    console.log(
      `migrate 0.2.0→0.3.0, ${legacyFiles.length} files (${migrated} migrated): ${migrate.toFixed(0)} ms vs copying the tree ${copy.toFixed(0)} ms → ${(migrate / copy).toFixed(1)}× (no target in the issue)`,
    );

    const clinical = join(
      process.cwd(),
      '..',
      'shared',
      'reference',
      'infereval',
      'examples',
      'clinical_pilot',
      'benchmark.json',
    );
    let benchmark: Record<string, unknown> | undefined;
    try {
      benchmark = JSON.parse(readFileSync(clinical, 'utf8'));
    } catch {
      console.log('benchmark_hash: reference benchmark not found, skipped');
    }
    if (benchmark) {
      const doc = benchmark;
      const n = 200;
      const hash = await time(() => benchmarkHash(doc), n);
      const plain = await time(() => JSON.parse(JSON.stringify(doc)), n);
      console.log(
        `benchmark_hash (clinical pilot, 30 kB): ${hash.toFixed(2)} ms vs JSON round trip ${plain.toFixed(2)} ms → ${(hash / plain).toFixed(1)}× (no target in the issue)`,
      );
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
