// `npm run bench -- convert-inspect`: converts a generated Inspect AI `.eval` log of ≥ 50,000 samples (deflate
// members, realistic transcripts with events and attachments) into an EEE datastore, in a child process, beside the
// baseline in another: `JSON.parse` of every sample member as it comes out of the archive (the same bytes; their
// inflating is part of reading them). Throughput over the decompressed member bytes, wall and CPU time, and peak
// RSS. Targets: ≥ 0.5× the baseline; peak RSS < 256 MB. BENCH_SAMPLES changes the sample count.
import { existsSync, mkdirSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ZipReader } from '../src/io/zip.js';
import { createRng } from '../src/metrics/stats/rng.js';
import { ZipBuilder } from '../test/helpers/zip-writer.js';
import { compareWithBaseline } from './_convert-measure.js';

const here = dirname(fileURLToPath(import.meta.url));

const WORDS = (
  'the of and to in is that for it as was with be by on not this are or from at which but have an they you ' +
  'model answer question reasoning because therefore evidence “quoted” café naïve 数学 equation 42 3.14 tool call'
).split(' ');

function text(next: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(next() * WORDS.length)]);
  return out.join(' ');
}

function sample(id: number, next: () => number): Record<string, unknown> {
  const question = `Question ${id}: ${text(next, 40 + Math.floor(next() * 120))}`;
  const answer = `${text(next, 20 + Math.floor(next() * 80))} ANSWER: ${['A', 'B', 'C', 'D'][id % 4]}`;
  const messages = [
    { id: `m${id}a`, role: 'system', content: 'Answer the question. End with ANSWER: <letter>.' },
    { id: `m${id}b`, role: 'user', source: 'input', content: question },
    { id: `m${id}c`, role: 'assistant', source: 'generate', model: 'bench-model', content: answer },
  ];
  const usage = {
    input_tokens: 80 + (id % 50),
    output_tokens: 40 + (id % 30),
    total_tokens: 120 + (id % 80),
  };
  const correct = next() < 0.7;
  return {
    id,
    epoch: 1,
    input: question,
    target: ['A', 'B', 'C', 'D'][id % 4],
    messages,
    output: {
      model: 'bench-model',
      choices: [{ message: messages[2], stop_reason: 'stop' }],
      usage,
      time: next(),
    },
    scores: {
      match: {
        value: correct ? 'C' : 'I',
        answer: ['A', 'B', 'C', 'D'][id % 4],
        explanation: answer.slice(0, 80),
      },
    },
    metadata: { subject: WORDS[id % WORDS.length], difficulty: id % 5 },
    store: {},
    // As in real logs, the event transcript is most of a sample's bytes (the converter reads past it).
    events: [
      {
        event: 'sample_init',
        timestamp: '2026-01-01T00:00:00+00:00',
        sample: { input: 'attachment://a1', target: 'A' },
        state: { messages: messages.slice(0, 2) },
      },
      ...[0, 1, 2].map((k) => ({
        event: 'model',
        timestamp: `2026-01-01T00:00:0${k + 1}+00:00`,
        working_start: next(),
        model: 'bench/model',
        input: messages.slice(0, 2),
        tools: [],
        tool_choice: 'none',
        config: { temperature: 0, max_tokens: 512 },
        output: {
          model: 'bench-model',
          choices: [{ message: messages[2], stop_reason: 'stop' }],
          usage,
          time: next(),
        },
        call: {
          request: {
            model: 'bench-model',
            messages: messages.map((m) => ({ role: m.role, content: m.content })),
            temperature: 0,
            max_tokens: 512,
          },
          response: {
            id: `resp-${id}-${k}`,
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: `${answer} ${text(next, 60)}` },
                finish_reason: 'stop',
              },
            ],
            usage,
          },
          time: next(),
        },
      })),
      {
        event: 'score',
        timestamp: '2026-01-01T00:00:05+00:00',
        score: { value: correct ? 'C' : 'I', explanation: answer },
      },
    ],
    model_usage: { 'bench/model': usage },
    total_time: 1 + next(),
    working_time: next(),
    uuid: `u${id}`,
    attachments: { a1: question },
  };
}

/** Writes (once, cached under bench/.data) a .eval log of `n` samples; returns its path. */
function generate(n: number): string {
  const dir = join(here, '.data');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `inspect-${n}.eval`);
  if (existsSync(path)) return path;
  const next = createRng(42);
  const spec = {
    eval_id: 'bench-eval',
    run_id: 'bench-run',
    task_id: 'bench-task',
    created: '2026-01-01T00:00:00+00:00',
    task: 'bench_mcq',
    dataset: { name: 'bench', samples: n },
    model: 'hf/acme/bench-7b',
    config: { epochs: 1 },
    packages: { inspect_ai: '0.3.150' },
  };
  const plan = { name: 'plan', steps: [{ solver: 'generate', params: {} }], config: {} };
  const zip = new ZipBuilder();
  zip.add({ name: '_journal/start.json', data: JSON.stringify({ version: 2, eval: spec, plan }) });
  let correct = 0;
  const reductions: unknown[] = [];
  for (let i = 1; i <= n; i++) {
    const s = sample(i, next);
    const value = (s.scores as { match: { value: string } }).match.value === 'C' ? 1 : 0;
    correct += value;
    reductions.push({ sample_id: i, value });
    zip.add({ name: `samples/${i}_epoch_1.json`, data: JSON.stringify(s) });
  }
  zip.add({ name: 'reductions.json', data: JSON.stringify([{ scorer: 'match', samples: reductions }]) });
  const accuracy = correct / n;
  zip.add({
    name: 'header.json',
    data: JSON.stringify({
      version: 2,
      status: 'success',
      eval: spec,
      plan,
      results: {
        total_samples: n,
        completed_samples: n,
        scores: [
          {
            name: 'match',
            scorer: 'match',
            metrics: {
              accuracy: { name: 'accuracy', value: accuracy },
              stderr: { name: 'stderr', value: Math.sqrt((accuracy * (1 - accuracy)) / (n - 1)) },
            },
          },
        ],
      },
      stats: { started_at: '2026-01-01T00:00:00+00:00', completed_at: '2026-01-01T01:00:00+00:00' },
    }),
  });
  writeFileSync(`${path}.tmp`, zip.finish());
  renameSync(`${path}.tmp`, path);
  return path;
}

/** The decompressed bytes of the sample members (what both the baseline and the converter parse). */
async function sampleBytes(path: string): Promise<number> {
  const zip = await ZipReader.open(path);
  try {
    return zip.entries
      .filter((e) => e.name.startsWith('samples/'))
      .reduce((n, e) => n + e.uncompressedSize, 0);
  } finally {
    await zip.close();
  }
}

export async function run(): Promise<void> {
  const n = Number(process.env.BENCH_SAMPLES ?? '50000') || 50000;
  const started = performance.now();
  const path = generate(n);
  console.log(
    `input: ${path} (${n} samples; ready in ${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
  const out = join(here, '.data', 'convert-inspect-out');
  rmSync(out, { recursive: true, force: true });
  await compareWithBaseline({
    label: `Inspect .eval, ${n} samples (deflate members)`,
    bytes: await sampleBytes(path),
    baseline: ['parse-eval', path],
    convert: ['convert', out, path],
    rounds: Math.max(1, Number(process.env.BENCH_REPEATS ?? '2') || 2),
  });
  rmSync(out, { recursive: true, force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
