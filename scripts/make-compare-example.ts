// `npx tsx scripts/make-compare-example.ts`: generates examples/compare: three models on 40 arithmetic questions in 4 categories (an EEE 0.3.0 datastore).
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sampleHash } from '../src/formats/eee/sample-hash.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'examples', 'compare');
const categories = ['addition', 'subtraction', 'multiplication', 'division'];
const questions = Array.from({ length: 40 }, (_, i) => {
  const a = 3 + ((i * 7) % 17);
  const b = 2 + ((i * 5) % 9);
  const category = categories[i % 4]!;
  const [sym, answer] =
    category === 'addition'
      ? ['+', a + b]
      : category === 'subtraction'
        ? ['-', a - b]
        : category === 'multiplication'
          ? ['*', a * b]
          : ['/', (a * b) / b];
  const raw = category === 'division' ? `What is ${a * b} / ${b}?` : `What is ${a} ${sym} ${b}?`;
  return { id: `q${String(i + 1).padStart(2, '0')}`, raw, answer: String(answer), category };
});
// Which questions each model gets wrong (deterministic).
const models = [
  {
    dev: 'acme',
    name: 'tiny-model-1b',
    uuid: '0b6f3c52-1d7e-4a8b-9c0d-1e2f3a4b5c61',
    wrong: (i: number) => i % 4 === 2 || i % 5 === 0,
    ts: '1767225600',
  },
  {
    dev: 'acme',
    name: 'tiny-model-3b',
    uuid: '1c7a4d63-2e8f-4b9c-8d1e-2f3a4b5c6d72',
    wrong: (i: number) => (i % 4 === 2 && i % 3 === 0) || i === 7,
    ts: '1767312000',
  },
  {
    dev: 'globex',
    name: 'pocket-7b',
    uuid: '2d8b5e74-3f9a-4cad-9e2f-3a4b5c6d7e83',
    wrong: (i: number) => (i % 4 === 3 && i % 2 === 1 && i < 30) || i === 0,
    ts: '1767398400',
  },
];
for (const m of models) {
  const dir = join(root, 'data', 'arith-40', m.dev, m.name);
  mkdirSync(dir, { recursive: true });
  const evaluationId = `arith-40/${m.dev}_${m.name}/${m.ts}`;
  const modelId = `${m.dev}/${m.name}`;
  const rows = questions.map((q, i) => {
    const wrong = m.wrong(i);
    const output = wrong ? String(Number(q.answer) + 1) : q.answer;
    const input = { raw: q.raw, reference: [q.answer] };
    return {
      schema_version: '0.3.0',
      evaluation_id: evaluationId,
      model_id: modelId,
      evaluation_name: 'arith-40',
      evaluation_result_id: 'arith-40.exact_match',
      sample_id: q.id,
      sample_hash: sampleHash(input),
      interaction_type: 'single_turn',
      input,
      output: { raw: [output] },
      answer_attribution: [
        {
          turn_idx: 0,
          source: 'output.raw',
          extracted_value: output,
          extraction_method: 'exact_match',
          is_terminal: true,
        },
      ],
      evaluation: { score: wrong ? 0 : 1, is_correct: !wrong },
      metadata: { category: q.category },
    };
  });
  const text = rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
  const correct = rows.filter((r) => r.evaluation.score === 1).length;
  const samplesName = `${m.uuid}_samples.jsonl`;
  writeFileSync(join(dir, samplesName), text);
  const record = {
    schema_version: '0.3.0',
    evaluation_id: evaluationId,
    evaluation_timestamp: m.ts,
    retrieved_timestamp: m.ts,
    source_metadata: {
      source_name: 'Arithmetic 40',
      source_type: 'evaluation_run',
      source_organization_name: 'Acme Evals',
      evaluator_relationship: 'third_party',
    },
    eval_library: { name: 'evalkit', version: '0.1.0' },
    model_info: {
      name: m.name,
      id: modelId,
      developer: m.dev,
      additional_details: { deployment_type: 'self_deployed', model_availability: 'open_weights' },
    },
    evaluation_results: [
      {
        evaluation_result_id: 'arith-40.exact_match',
        evaluation_name: 'arith-40',
        source_data: {
          dataset_name: 'arith-40',
          source_type: 'url',
          url: ['https://example.invalid/arith-40'],
        },
        metric_config: {
          metric_id: 'exact_match',
          metric_name: 'exact_match',
          metric_kind: 'accuracy',
          metric_unit: 'proportion',
          lower_is_better: false,
          score_type: 'binary',
          min_score: 0,
          max_score: 1,
        },
        score_details: { score: correct / rows.length, uncertainty: { num_samples: rows.length } },
      },
    ],
    detailed_evaluation_results: {
      format: 'jsonl',
      file_path: `data/arith-40/${m.dev}/${m.name}/${samplesName}`,
      hash_algorithm: 'sha256',
      checksum: createHash('sha256').update(text).digest('hex'),
      total_rows: rows.length,
    },
  };
  writeFileSync(join(dir, `${m.uuid}.json`), JSON.stringify(record, null, 2) + '\n');
  console.log(modelId, correct);
}
