// The sample page of a long agentic transcript in Chromium, as a whole command for a process timer (bench/RESULTS.md,
// "view: a long transcript"):
//   node --import tsx bench/_view-transcript.ts build STORE [TURNS]  — a store with one agentic row of TURNS model
//     turns (default 1,000), each a tool call whose result is 60 lines (about 2,000 characters);
//   node --import tsx bench/_view-transcript.ts open STORE  — the viewer over it, Chromium opening the row's page,
//     until the transcript is drawn and nothing is loading; then everything is closed.
// Run `open` from two checkouts (this one and a baseline) over the same store to compare them.
import { openStore } from '../src/store/db.js';
import { startViewServer } from '../src/view/server.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../test/helpers/browser.js';

const [command, path, turnsArg] = process.argv.slice(2);
if (!path || (command !== 'build' && command !== 'open')) {
  console.error('usage: _view-transcript.ts build|open STORE [TURNS]');
  process.exit(2);
}

if (command === 'build') {
  const turns = Number(turnsArg ?? 1000);
  const result = Array.from({ length: 60 }, (_, i) => `line ${i}: ${'x'.repeat(24)}`).join('\n');
  const messages: object[] = [{ turn_idx: 0, role: 'user', content: 'Go.' }];
  for (let t = 0; t < turns; t++) {
    const id = `call-${t}`;
    const args = JSON.stringify({ expression: `${t} + 1` });
    messages.push({
      turn_idx: messages.length,
      role: 'assistant',
      content: null,
      tool_calls: [{ id, name: 'calculator', arguments: { expression: `${t} + 1` }, arguments_json: args }],
    });
    messages.push({ turn_idx: messages.length, role: 'tool', content: result, tool_call_id: [id] });
  }
  const raw = JSON.stringify({
    input: {},
    messages,
    evaluation: { num_turns: turns, tool_calls_count: turns },
    metadata: { stop_reason: 'limit:max_turns', final_answer: 'none' },
  });
  const store = await openStore(path, { readOnly: false });
  try {
    await store.connection.run(
      `INSERT INTO records (record_key, content_hash, evaluation_id, schema_version, collection, model_id, developer,
         origin_kind, origin_path, ingest_id, ingested_at, sample_count, raw)
       VALUES ('rec', 'rec', 'bench/1', '0.3.0', 'bench', 'bench/agent', 'bench', 'eee', 'bench', 'bench',
               now()::TIMESTAMP, 1, '{}')`,
    );
    await store.connection.run(
      `INSERT INTO results (record_key, result_index, evaluation_result_id, evaluation_name, metric_name, score_type,
         lower_is_better, score, num_samples, raw)
       VALUES ('rec', 0, 'agent.match', 'agent', 'match', 'binary', false, 0, 1, '{}')`,
    );
    await store.connection.run(
      `INSERT INTO samples (record_key, row_index, evaluation_result_id, evaluation_name, sample_id, sample_hash,
         interaction_type, input_text, reference_text, output_text, score, is_correct, raw, schema_version,
         evaluation_id, model_id)
       VALUES ('rec', 0, 'agent.match', 'agent', 'long', NULL, 'agentic', 'Go.', 'x', NULL, 0, false, $1, '0.3.0',
               'bench/1', 'bench/agent')`,
      [raw],
    );
    await store.connection.run('CHECKPOINT');
  } finally {
    store.close();
  }
} else {
  const store = await openStore(path, { readOnly: true });
  const server = await startViewServer({ store, port: 0 });
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    await page.goto(new URL('#/sample?record=rec&row=0', server.url).href, { waitUntil: 'load' });
    await page.waitForSelector('.transcript > li', { timeout: 120_000 });
    await page.waitForFunction(() => document.querySelectorAll('.loading').length === 0, null, {
      timeout: 120_000,
    });
    // One frame drawn after the transcript is in the document.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(null))));
  } finally {
    await browser.close();
    await server.close();
    store.close();
  }
}
