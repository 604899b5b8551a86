// A generated EEE datastore and the store ingested from it, shared by the store benches (bench/store.ts and the
// leaderboard/compare and viewer benches) and the store's crash test. `ensureBenchStore()` builds both once and
// caches them under bench/.data (regenerated when the parameters change): MODELS models answer the same QUESTIONS
// questions of one benchmark, so every pair of models has QUESTIONS paired rows (binary scores, each model with its
// own accuracy), and rows look like real single-turn rows (~800 bytes, canonical sample_hash).
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sampleHash } from '../src/formats/eee/sample-hash.js';
import { createRng } from '../src/metrics/stats/rng.js';

const here = dirname(fileURLToPath(import.meta.url));

export interface BenchDataOptions {
  /** Models, one record each (default 10). */
  models?: number;
  /** Rows per record (default 100,000: 1,000,000 rows in all). */
  questions?: number;
  /** Where to write (default bench/.data/store-<models>x<questions>). */
  dir?: string;
  collection?: string;
  /**
   * Words of reasoning before the answer in each row's output (default 0: a short answer, ~0.9 KB rows); 150 gives
   * ~1.5 KB rows like a chain-of-thought datastore's.
   */
  reasoningWords?: number;
}

export interface BenchData {
  /** The datastore root (holds data/). */
  root: string;
  aggregates: string[];
  samples: string[];
  /** Bytes of all samples JSONL files. */
  jsonlBytes: number;
  rows: number;
}

const WORDS = (
  'the of and to in is that for it as was with be by on not this are or from at which but have an they were ' +
  'model answer question reasoning because therefore evidence equation value number result table figure ' +
  'chemistry biology history law economics physics café naïve 数学 λ'
).split(' ');

function text(next: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(next() * WORDS.length)]);
  return out.join(' ');
}

const uuidOf = (seed: string): string => {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/** The question of index i (the same for every model, so rows pair by sample_hash and sample_id). */
function question(i: number): { raw: string; reference: string[]; choices: string[] } {
  const next = createRng(1_000_003 + i);
  const choices = ['A', 'B', 'C', 'D'].map((c) => `${c}. ${text(next, 2)}`);
  return {
    raw: `Question ${i}: ${text(next, 10 + Math.floor(next() * 16))}?\n${choices.join('\n')}\nAnswer:`,
    reference: [['A', 'B', 'C', 'D'][i % 4]],
    choices,
  };
}

/** Writes the datastore (if not there yet with these parameters) and returns where it is. */
export function ensureBenchData(options: BenchDataOptions = {}): BenchData {
  const models = options.models ?? 10;
  const questions = options.questions ?? 100_000;
  const collection = options.collection ?? 'bench-store';
  const reasoning = options.reasoningWords ?? 0;
  const root =
    options.dir ?? join(here, '.data', `store-${models}x${questions}${reasoning ? `-r${reasoning}` : ''}`);
  const done = join(root, 'COMPLETE');
  const aggregates: string[] = [];
  const samples: string[] = [];
  const benchmark = 'bench-mmlu';
  const paths = Array.from({ length: models }, (_, m) => {
    const id = `model-${String(m).padStart(2, '0')}`;
    const uuid = uuidOf(`${collection}/${id}`);
    const rel = `data/${collection}/bench-lab/${id}/${uuid}`;
    return { m, id, rel, aggregate: join(root, `${rel}.json`), samples: join(root, `${rel}_samples.jsonl`) };
  });
  for (const p of paths) {
    aggregates.push(p.aggregate);
    samples.push(p.samples);
  }
  const jsonlBytes = (): number => samples.reduce((n, s) => n + statSync(s).size, 0);
  if (existsSync(done))
    return { root, aggregates, samples, jsonlBytes: jsonlBytes(), rows: models * questions };

  const started = Date.now();
  rmSync(root, { recursive: true, force: true });
  const cache = Array.from({ length: questions }, (_, i) => {
    const q = question(i);
    return { ...q, hash: sampleHash({ raw: q.raw, reference: q.reference }) };
  });
  for (const p of paths) {
    mkdirSync(dirname(p.aggregate), { recursive: true });
    const accuracy = 0.45 + (0.4 * p.m) / Math.max(1, models - 1);
    const next = createRng(77 + p.m);
    const evaluationId = `${collection}/bench-lab/${p.id}/1767225600`;
    const hash = createHash('sha256');
    const fd = openSync(`${p.samples}.tmp`, 'w');
    let correct = 0;
    let block: string[] = [];
    const flush = (): void => {
      const buf = Buffer.from(block.join(''), 'utf8');
      hash.update(buf);
      writeSync(fd, buf);
      block = [];
    };
    for (let i = 0; i < questions; i++) {
      const q = cache[i];
      const right = next() < accuracy;
      if (right) correct++;
      const answer = right ? q.reference[0] : ['A', 'B', 'C', 'D'][(i + 1 + Math.floor(next() * 3)) % 4];
      const row = {
        schema_version: '0.3.0',
        evaluation_id: evaluationId,
        model_id: `bench-lab/${p.id}`,
        evaluation_name: benchmark,
        evaluation_result_id: `${benchmark}.accuracy`,
        sample_id: `q-${i}`,
        sample_hash: q.hash,
        interaction_type: 'single_turn',
        input: { raw: q.raw, reference: q.reference, choices: q.choices },
        output: {
          raw: [
            `${text(next, 3 + Math.floor(next() * 6) + (reasoning ? reasoning - 20 + Math.floor(next() * 40) : 0))}. The answer is ${answer}.`,
          ],
        },
        answer_attribution: [
          {
            turn_idx: 0,
            source: 'output.raw',
            extracted_value: answer,
            extraction_method: 'regex',
            is_terminal: true,
          },
        ],
        evaluation: { score: right ? 1 : 0, is_correct: right },
        token_usage: {
          input_tokens: 80 + (i % 60),
          output_tokens: 12 + (i % 9),
          total_tokens: 92 + (i % 69),
        },
      };
      block.push(`${JSON.stringify(row)}\n`);
      if (block.length >= 4096) flush();
    }
    flush();
    closeSync(fd);
    renameSync(`${p.samples}.tmp`, p.samples);
    const score = correct / questions;
    const aggregate = {
      schema_version: '0.3.0',
      evaluation_id: evaluationId,
      retrieved_timestamp: '1767225600',
      source_metadata: {
        source_name: 'evalkit store bench',
        source_type: 'evaluation_run',
        source_organization_name: 'Bench Lab',
        evaluator_relationship: 'first_party',
      },
      eval_library: { name: 'evalkit-bench', version: '1' },
      model_info: {
        name: p.id,
        id: `bench-lab/${p.id}`,
        developer: 'bench-lab',
        additional_details: { deployment_type: 'self_deployed', model_availability: 'open_weights' },
      },
      evaluation_results: [
        {
          evaluation_result_id: `${benchmark}.accuracy`,
          evaluation_name: benchmark,
          source_data: { dataset_name: benchmark, source_type: 'other' },
          metric_config: {
            metric_id: 'accuracy',
            metric_name: 'Accuracy',
            metric_kind: 'accuracy',
            metric_unit: 'proportion',
            lower_is_better: false,
            score_type: 'binary',
            min_score: 0,
            max_score: 1,
          },
          score_details: {
            score,
            uncertainty: {
              standard_error: { value: Math.sqrt((score * (1 - score)) / questions), method: 'analytic' },
              num_samples: questions,
            },
          },
        },
      ],
      detailed_evaluation_results: {
        format: 'jsonl',
        file_path: `${p.rel}_samples.jsonl`,
        hash_algorithm: 'sha256',
        checksum: hash.digest('hex'),
        total_rows: questions,
      },
    };
    const fdA = openSync(p.aggregate, 'w');
    writeSync(fdA, `${JSON.stringify(aggregate, null, 2)}\n`);
    closeSync(fdA);
  }
  writeSync(openSync(done, 'w'), `${new Date().toISOString()}\n`);
  const bytes = jsonlBytes();
  console.log(
    `generated ${models} records × ${questions.toLocaleString('en')} rows (${(bytes / 1e6).toFixed(0)} MB JSONL) in ` +
      `${((Date.now() - started) / 1000).toFixed(1)} s under ${root}`,
  );
  return { root, aggregates, samples, jsonlBytes: bytes, rows: models * questions };
}

export interface BenchStore extends BenchData {
  /** The DuckDB store holding every record and row of the datastore. */
  db: string;
  /** Seconds the ingest took (0 when the cached store was reused). */
  ingestSeconds: number;
}

/**
 * The bench datastore ingested into a store (bench/.data/store-<m>x<q>.duckdb), made once and reused: the store
 * benches of leaderboard, compare and the viewer call this. `fresh` re-ingests into a new file.
 */
export async function ensureBenchStore(
  options: BenchDataOptions & { fresh?: boolean } = {},
): Promise<BenchStore> {
  const data = ensureBenchData(options);
  const db = `${data.root}.duckdb`;
  const marker = `${db}.complete`;
  if (!options.fresh && existsSync(marker) && existsSync(db)) return { ...data, db, ingestSeconds: 0 };
  rmSync(db, { force: true });
  rmSync(`${db}.wal`, { force: true });
  rmSync(marker, { force: true });
  const { openStore } = await import('../src/store/db.js');
  const { ingestPaths } = await import('../src/store/ingest.js');
  const store = await openStore(db, { readOnly: false });
  const started = performance.now();
  try {
    await ingestPaths(store, [join(data.root, 'data')]);
    await store.connection.run('CHECKPOINT');
  } finally {
    store.close();
  }
  const ingestSeconds = (performance.now() - started) / 1000;
  writeSync(openSync(marker, 'w'), `${new Date().toISOString()}\n`);
  return { ...data, db, ingestSeconds };
}
