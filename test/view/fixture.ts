// A small real store for the viewer's tests, written row by row with openStore (the way ingest fills it): two
// models answering the same 40 quiz questions (paired by sample_hash), an agentic row with a transcript, a record
// whose every text is hostile (script, onerror, javascript: links) and carries validation warnings, an infereval η
// and a scored retrieval result kept in `documents`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore, type Store } from '../../src/store/db.js';
import { splitSampleRow } from '../../src/store/sample-row.js';
import { projectRoot } from '../helpers/shared.js';

export const XSS = {
  script: `<script>document.title='pwned';window.__pwned=1</script>`,
  img: `<img src=x onerror="window.__pwned=2">`,
  link: `javascript:window.__pwned=3`,
  markdownLink: `[click me](javascript:window.__pwned=4)`,
};

export const MODELS = {
  a: 'acme/alpha-7b',
  b: 'bravo/beta-8b',
  x: 'evil/<script>alert(1)</script>',
} as const;
export const QUIZ = 'quiz';
export const QUIZ_METRIC = 'Accuracy';

/** Whether model a and b got question i right (a is right on 30 of 40, b on 22; they disagree on 14). */
export function quizCorrect(model: 'a' | 'b', i: number): boolean {
  return model === 'a' ? i % 4 !== 3 : i % 5 < 3 && i !== 37;
}

export const QUIZ_ROWS = 40;

interface RecordSpec {
  key: string;
  model: string;
  developer: string;
  evaluationId: string;
  collection: string;
  sourceOrg: string;
  sourceUrl?: string;
  modelName?: string;
  deployment: string;
  availability: string;
  diagnostics?: unknown[];
  results: {
    name: string;
    resultId: string;
    metric: string;
    scoreType: string;
    score: number;
    lowerIsBetter?: boolean;
    rows: {
      sampleId: string;
      hash: string;
      input: string;
      reference: string;
      output: string | null;
      score: number;
      correct: boolean;
      raw?: Record<string, unknown>;
    }[];
  }[];
}

async function insertRecord(store: Store, spec: RecordSpec): Promise<void> {
  const raw = {
    schema_version: '0.3.0',
    evaluation_id: spec.evaluationId,
    retrieved_timestamp: '1777636800',
    source_metadata: {
      source_name: `${spec.sourceOrg} run`,
      source_type: 'evaluation_run',
      source_organization_name: spec.sourceOrg,
      source_organization_url: spec.sourceUrl,
      evaluator_relationship: 'third_party',
    },
    eval_library: { name: 'evalkit', version: '0.1.0' },
    model_info: {
      name: spec.modelName ?? spec.model,
      id: spec.model,
      developer: spec.developer,
      additional_details: { deployment_type: spec.deployment, model_availability: spec.availability },
    },
    evaluation_results: spec.results.map((r) => ({
      evaluation_result_id: r.resultId,
      evaluation_name: r.name,
      metric_config: {
        metric_name: r.metric,
        lower_is_better: r.lowerIsBetter ?? false,
        score_type: r.scoreType,
      },
      score_details: { score: r.score },
      generation_config: { generation_args: { temperature: 0 } },
    })),
  };
  const rows = spec.results.reduce((n, r) => n + r.rows.length, 0);
  await insertRow(store, 'records', {
    record_key: spec.key,
    content_hash: spec.key,
    evaluation_id: spec.evaluationId,
    schema_version: '0.3.0',
    collection: spec.collection,
    source_name: `${spec.sourceOrg} run`,
    source_type: 'evaluation_run',
    source_organization_name: spec.sourceOrg,
    source_organization_url: spec.sourceUrl ?? null,
    evaluator_relationship: 'third_party',
    model_id: spec.model,
    model_name: spec.modelName ?? spec.model,
    developer: spec.developer,
    inference_platform: 'local',
    deployment_type: spec.deployment,
    model_availability: spec.availability,
    eval_library_name: 'evalkit',
    eval_library_version: '0.1.0',
    retrieved_timestamp: '1777636800',
    evaluation_timestamp: '2026-05-01T12:00:00Z',
    origin_kind: 'eee',
    origin_path: `examples/${spec.evaluationId.slice(0, 20)}.json`,
    ingest_id: 'ingest-1',
    ingested_at: '2026-11-20 10:00:00',
    sample_count: rows,
    diagnostics: spec.diagnostics ? JSON.stringify(spec.diagnostics) : null,
    raw: JSON.stringify(raw),
  });
  let rowIndex = 0;
  for (const [i, r] of spec.results.entries()) {
    await insertRow(store, 'results', {
      record_key: spec.key,
      result_index: i,
      evaluation_result_id: r.resultId,
      evaluation_name: r.name,
      metric_name: r.metric,
      score_type: r.scoreType,
      lower_is_better: r.lowerIsBetter ?? false,
      min_score: 0,
      max_score: 1,
      score: r.score,
      num_samples: r.rows.length,
      raw: JSON.stringify(raw.evaluation_results[i]),
    });
    for (const row of r.rows) {
      const whole = {
        schema_version: '0.3.0',
        evaluation_id: spec.evaluationId,
        model_id: spec.model,
        evaluation_name: r.name,
        evaluation_result_id: r.resultId,
        sample_id: row.sampleId,
        sample_hash: row.hash,
        interaction_type: 'single_turn',
        input: { raw: row.input, reference: [row.reference] },
        output: { raw: row.output === null ? null : [row.output] },
        evaluation: { score: row.score, is_correct: row.correct },
        ...row.raw,
      };
      // Split as ingest stores it: the columns, and the rest of the row in raw.
      await insertRow(store, 'samples', {
        record_key: spec.key,
        row_index: rowIndex++,
        ...splitSampleRow(whole),
      });
    }
  }
}

/** INSERT one row by column name (columns left out are NULL). */
async function insertRow(store: Store, table: string, values: Record<string, unknown>): Promise<void> {
  const names = Object.keys(values);
  await store.connection.run(
    `INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
    names.map((n) => values[n] as string | number | boolean | null),
  );
}

function quizRows(model: 'a' | 'b') {
  return Array.from({ length: QUIZ_ROWS }, (_, i) => {
    const correct = quizCorrect(model, i);
    return {
      sampleId: `q-${String(i).padStart(3, '0')}`,
      hash: `hash-${i}`,
      input: `Question ${i}: what is ${i} + ${i}?`,
      reference: String(2 * i),
      output: correct ? String(2 * i) : `I think it is ${2 * i + 1}`,
      score: correct ? 1 : 0,
      correct,
    };
  });
}

/** Builds the fixture store at `path` (a new file) and closes it. */
export async function buildFixtureStore(path: string): Promise<void> {
  const store = await openStore(path, { readOnly: false });
  try {
    await store.connection.run(
      `INSERT INTO ingests VALUES ('ingest-1', TIMESTAMP '2026-11-20 10:00:00', TIMESTAMP '2026-11-20 10:00:05',
        '["examples/quiz"]', 5, 95, 1, 2)`,
    );
    const accuracy = (m: 'a' | 'b') => quizRows(m).reduce((n, r) => n + r.score, 0) / QUIZ_ROWS;
    await insertRecord(store, {
      key: 'a'.repeat(64),
      model: MODELS.a,
      developer: 'acme',
      evaluationId: 'quiz/acme/alpha-7b/1',
      collection: 'quiz-suite',
      sourceOrg: 'Acme Evals',
      deployment: 'self_deployed',
      availability: 'open_weights',
      diagnostics: [],
      results: [
        {
          name: QUIZ,
          resultId: 'quiz.acc',
          metric: QUIZ_METRIC,
          scoreType: 'binary',
          score: accuracy('a'),
          rows: quizRows('a'),
        },
        {
          name: 'agent tasks',
          resultId: 'agent.pass',
          metric: 'Pass rate',
          scoreType: 'binary',
          score: 1,
          rows: [
            {
              sampleId: 'tools-0001',
              hash: 'tools-hash-1',
              input: 'Find the file size of notes.txt',
              reference: '1024',
              output: 'notes.txt is 1024 bytes.',
              score: 1,
              correct: true,
              raw: {
                interaction_type: 'agentic',
                input: { raw: 'Find the file size of notes.txt', reference: ['1024'] },
                output: { raw: ['notes.txt is 1024 bytes.'], reasoning_trace: 'I should call stat first.' },
                messages: [
                  { turn_idx: 0, role: 'user', content: 'Find the file size of notes.txt' },
                  {
                    turn_idx: 1,
                    role: 'assistant',
                    content: null,
                    tool_calls: [
                      { id: 'call-1', name: 'bash', arguments: { command: 'stat -c %s notes.txt' } },
                    ],
                  },
                  { turn_idx: 2, role: 'tool', content: '1024', tool_call_id: ['call-1'] },
                  { turn_idx: 3, role: 'assistant', content: 'notes.txt is 1024 bytes.' },
                ],
                evaluation: { score: 1, is_correct: true, num_turns: 4, tool_calls_count: 1 },
              },
            },
          ],
        },
      ],
    });
    await insertRecord(store, {
      key: 'b'.repeat(64),
      model: MODELS.b,
      developer: 'bravo',
      evaluationId: 'quiz/bravo/beta-8b/1',
      collection: 'quiz-suite',
      sourceOrg: 'Bravo Lab',
      deployment: 'externally_managed',
      availability: 'closed_weights',
      results: [
        {
          name: QUIZ,
          resultId: 'quiz.acc',
          metric: QUIZ_METRIC,
          scoreType: 'binary',
          score: accuracy('b'),
          rows: quizRows('b'),
        },
      ],
    });
    // Every text hostile; validation warnings stored with it.
    await insertRecord(store, {
      key: 'c'.repeat(64),
      model: MODELS.x,
      modelName: XSS.img,
      developer: 'evil',
      evaluationId: `evil/${XSS.script}`,
      collection: 'quiz-suite',
      sourceOrg: XSS.img,
      sourceUrl: XSS.link,
      deployment: 'unknown',
      availability: 'unknown',
      diagnostics: [
        {
          file: 'evil.json',
          line: 3,
          column: 5,
          severity: 'warning',
          code: 'eee.rules.suspicious',
          message: `a warning that quotes ${XSS.script}`,
          pointer: '/source_metadata',
        },
      ],
      results: [
        {
          name: QUIZ,
          resultId: 'quiz.acc',
          metric: QUIZ_METRIC,
          scoreType: 'binary',
          score: 0.5,
          rows: [
            {
              sampleId: 'evil-1',
              hash: 'hash-0',
              input: XSS.script,
              reference: XSS.link,
              output: XSS.img,
              score: 1,
              correct: true,
            },
            {
              sampleId: 'evil-2',
              hash: 'hash-1',
              input: XSS.markdownLink,
              reference: '2',
              output: XSS.link,
              score: 0,
              correct: false,
            },
          ],
        },
      ],
    });
    const eta = readFileSync(join(projectRoot, 'examples/report/evaluation.json'), 'utf8');
    await store.connection.run(`INSERT INTO documents VALUES ($1, 'infereval.evaluation', $2)`, [
      'a'.repeat(64),
      eta,
    ]);
    const jsonl = (f: string) =>
      readFileSync(join(projectRoot, 'examples/retrieval', f), 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l));
    await store.connection.run(`INSERT INTO documents VALUES ($1, 'retrieval.result', $2)`, [
      'b'.repeat(64),
      JSON.stringify({ gold: jsonl('gold.jsonl'), results: jsonl('results.jsonl') }),
    ]);
  } finally {
    store.close();
  }
}
