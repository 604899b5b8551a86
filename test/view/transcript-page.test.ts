// Issue 43 in the viewer, in a real Chromium: the sample page of an agentic row shows the conversation turn by
// turn, each tool call with its arguments (pretty JSON when they parse) and under it the result that answers it
// (paired by tool_call_id; failed results marked), the stop reason and the final answer, as Inspect's transcripts
// do. Records: the replayed agent example (examples/agent), a run against the local tool-calling server (error
// results, a long tool output, hostile texts, a conversation longer than one window) and real Inspect logs with
// tool calls converted by `evalkit convert` (../shared/reference). What the page must show is derived here from
// the records' rows.
// test-runner: own process (a real Chromium: as a job of its own it keeps the batches short).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import type { Page } from 'playwright-core';
import { skipWithoutChromium } from '../helpers/browser.js';
import { cli } from '../helpers/cli.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';
import { reference, withReference } from '../helpers/shared.js';
import { openaiRun, recordsUnder, writeTask, type WrittenRecord } from '../run-task/helpers.js';
import { openStore, type Store } from '../../src/store/db.js';
import { startViewServer, type ViewServer } from '../../src/view/server.js';
import { XSS } from './fixture.js';
import { launchBrowser, openView, viewUrl, watchedPage, type SharedBrowser } from './harness.js';

const SHOTS = join(tmpdir(), 'evalkit-view-shots');
const browserTest = { skip: skipWithoutChromium(), timeout: 240_000 };

const INSPECT_LOGS = {
  gaia: 'peers-wild-3/inspect_ai/evaleval__every_eval_ever__inspect-0.3.180-limit5-json-logs-2026/tests/data/inspect/inspect_shortened/gaia.json',
  vitals: 'peers-wild-2/inspect_ai/tidyverse__vitals__arithmetic-with-tool',
};

/** Lines of the long table result (more than the page shows before "Show all"). */
const LONG_LINES = 60;
const LONG_RESULT = Array.from(
  { length: LONG_LINES },
  (_, i) => `reading ${i}: ${i % 7 === 0 ? XSS.img : 'calm'} ${'·'.repeat(30)}`,
).join('\n');
/** Model turns of the sample that never stops (more steps than one window of the page). */
const ENDLESS_TURNS = 205;

let temp: string;
let provider: ProviderServer;
let store: Store;
let server: ViewServer;
let browser: SharedBrowser;
const records = {
  replay: new Map<string, WrittenRecord>(),
  local: undefined as WrittenRecord | undefined,
  inspect: new Map<string, WrittenRecord>(),
};

async function ok(args: string[]): Promise<void> {
  const r = await cli(args);
  assert.equal(r.code, 0, `${args.join(' ')}\n${r.stdout}${r.stderr}`);
}

before(async () => {
  if (skipWithoutChromium()) return;
  temp = mkdtempSync(join(tmpdir(), 'evalkit-view-transcript-'));
  provider = await startProviderServer();
  const roots: string[] = [];

  // The replayed agent example of the quick start (two demo models).
  const replay = join(temp, 'replay');
  await ok([
    'run',
    'examples/agent/trips.task.yaml',
    '--provider',
    'replay',
    '--replay-from',
    'examples/agent/trips.fixture.jsonl',
    '--model',
    'demo-small',
    '--model',
    'demo-large',
    '--model-map',
    'examples/agent/models.json',
    '-o',
    replay,
  ]);
  records.replay = recordsUnder(replay);
  roots.push(replay);

  // A run against the local server: parallel calls with a long result, bad JSON and an unknown (hostile) tool,
  // hostile texts, then an answer; and a sample whose model never stops.
  const task = writeTask(
    join(temp, 'task'),
    'agent',
    `name: agent
dataset: {path: agent.jsonl}
tools:
  - name: weather
    description: Readings of a city
    parameters: {type: object, properties: {city: {type: string}}, required: [city], additionalProperties: false}
    table: weather.jsonl
  - {name: calculator, builtin: calculator}
limits: {max_turns: ${ENDLESS_TURNS}}
scorers: [match]
`,
    [
      { id: 'busy', input: `Readings please ${XSS.script}`, target: 'calm' },
      { id: 'endless', input: 'count forever', target: 'never' },
    ],
    {
      'weather.jsonl':
        JSON.stringify({ arguments: { city: 'Paris' }, result: LONG_RESULT }) +
        '\n' +
        JSON.stringify({ arguments: { city: XSS.img }, result: XSS.script }) +
        '\n',
    },
  );
  provider.setScript((ctx) => {
    const messages: { role: string }[] = ctx.body.messages ?? [];
    const turn = messages.filter((m) => m.role === 'assistant').length;
    if (ctx.sampleId.split(':')[1] === 'endless')
      return {
        toolCalls: [{ id: `n${turn}`, name: 'calculator', arguments: `{"expression": "${turn} + 1"}` }],
      };
    if (turn === 0)
      return {
        text: `Looking it up ${XSS.markdownLink}`,
        toolCalls: [
          { id: 'long', name: 'weather', arguments: '{"city": "Paris"}' },
          { id: 'broken', name: 'weather', arguments: '{"city": ' },
          { id: XSS.script, name: XSS.img, arguments: JSON.stringify({ x: XSS.link }) },
          { id: 'hostile', name: 'weather', arguments: JSON.stringify({ city: XSS.img }) },
        ],
      };
    return { text: `calm ${XSS.img}` };
  });
  const local = join(temp, 'local');
  await ok(openaiRun(task, provider.openaiBaseUrl, local));
  records.local = [...recordsUnder(local).values()][0];
  roots.push(local);

  // Real Inspect logs with tool calls, converted.
  for (const [name, path] of Object.entries(INSPECT_LOGS)) {
    const at = reference(path);
    if (!at) continue;
    const out = join(temp, `inspect-${name}`);
    await ok(['convert', '--from', 'inspect', '-o', out, at]);
    for (const [model, rec] of recordsUnder(out)) records.inspect.set(`${name} ${model}`, rec);
    roots.push(out);
  }

  const db = join(temp, 'store.duckdb');
  await ok(['ingest', '--db', db, '--no-progress', ...roots]);
  store = await openStore(db, { readOnly: true });
  server = await startViewServer({ store, port: 0 });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  store?.close();
  await provider?.close();
  if (temp) rmSync(temp, { recursive: true, force: true });
});

/** The store's row of a record's sample (by evaluation id and sample id). */
async function rowOf(rec: WrittenRecord, sampleId: string): Promise<{ record: string; row: number }> {
  const found = await store.all<{ record_key: string; row_index: number }>(
    `SELECT s.record_key, s.row_index::DOUBLE AS row_index FROM samples s JOIN records r USING (record_key)
     WHERE r.evaluation_id = $1 AND s.sample_id = $2`,
    [rec.aggregate.evaluation_id, sampleId],
  );
  assert.equal(found.length, 1, `one row of ${sampleId}`);
  return { record: found[0]!.record_key, row: found[0]!.row_index };
}

interface ShownResult {
  index: number;
  error: string | null;
  text: string;
  answer: boolean;
}
interface ShownCall {
  name: string;
  id: string | null;
  args: string;
  answer: boolean;
  results: ShownResult[];
}
interface ShownStep {
  index: number;
  role: string;
  content: string | null;
  answer: boolean;
  calls: ShownCall[];
}
interface Shown {
  fields: Record<string, string>;
  finalAnswer: string | null;
  answerSource: string | null;
  steps: ShownStep[];
}

/**
 * Reads the page in the browser (plain JavaScript: the test's TypeScript, compiled, would name its helper functions
 * with a helper the page does not have).
 */
const READ_PAGE = `(() => {
  const own = (el) =>
    el.querySelector(':scope > pre.text-block, :scope > .long-text > pre.text-block')?.textContent ?? null;
  const answer = (el) =>
    [...el.querySelectorAll(':scope > .message-head > .badge')].some((b) => b.textContent === 'final answer');
  const fields = {};
  for (const dt of document.querySelectorAll('main .fields dt'))
    fields[dt.textContent ?? ''] = dt.nextElementSibling?.textContent ?? '';
  return {
    fields,
    finalAnswer: document.querySelector('pre[aria-label="final answer"]')?.textContent ?? null,
    answerSource: document.querySelector('main p.muted > .mono')?.textContent ?? null,
    steps: [...document.querySelectorAll('[data-testid=transcript] > [data-testid=message]')].map((li) => ({
      index: Number(li.getAttribute('data-index')),
      role: li.getAttribute('data-role') ?? '',
      content: own(li),
      answer: answer(li),
      calls: [...li.querySelectorAll(':scope > [data-testid=tool-call]')].map((c) => ({
        name: c.querySelector('.tool-name')?.textContent ?? '',
        id: c.querySelector(':scope > .message-head > .mono:not(.tool-name)')?.textContent ?? null,
        args: own(c) ?? '',
        answer: answer(c),
        results: [...c.querySelectorAll(':scope > [data-testid=tool-result]')].map((r) => ({
          index: Number(/message (\\d+)/.exec(r.querySelector('.message-head')?.textContent ?? '')?.[1]),
          error: r.getAttribute('data-error'),
          text: own(r) ?? '',
          answer: answer(r),
        })),
      })),
    })),
  };
})()`;

/** What the page shows (every "Show all" opened first when `expand`). */
async function readPage(page: Page, expand = true): Promise<Shown> {
  if (expand)
    await page.evaluate(() => {
      for (const b of document.querySelectorAll<HTMLButtonElement>('.long-text:not(.open) > button'))
        b.click();
    });
  return page.evaluate(READ_PAGE) as Promise<Shown>;
}

/** The call's arguments as the page should show them: the text sent as pretty JSON when it parses. */
function expectedArgs(call: any): string {
  const sent = typeof call.arguments_json === 'string' ? call.arguments_json : undefined;
  if (sent !== undefined) {
    try {
      return JSON.stringify(JSON.parse(sent), null, 2);
    } catch {
      return sent;
    }
  }
  return call.arguments === null || call.arguments === undefined
    ? ''
    : JSON.stringify(call.arguments, null, 2);
}

/**
 * The transcript the page should show for a row, derived from its messages: each tool message under the call
 * whose id it names (ids are unique in these records), every other message a step; the final answer marked where
 * the row's terminal answer attribution says.
 */
function expectedSteps(row: any): ShownStep[] {
  const messages: any[] = row.messages;
  const source: string | undefined = (row.answer_attribution ?? []).find((a: any) => a.is_terminal)?.source;
  const at = source ? /^messages\[(\d+)\](?:\.tool_calls\[(\d+)\])?/.exec(source) : null;
  const answerMessage = at ? Number(at[1]) : -1;
  const answerCall = at?.[2] !== undefined ? Number(at[2]) : null;
  const calls = new Map<string, ShownCall>();
  const steps: ShownStep[] = [];
  const text = (c: unknown) => (c === null || c === undefined || c === '' ? null : String(c));
  messages.forEach((m, index) => {
    const answers: string[] = m.tool_call_id ?? [];
    const call = answers.length > 0 ? calls.get(answers[0]!) : undefined;
    if (call) {
      call.results.push({
        index,
        error: typeof m.error === 'string' ? m.error : null,
        text: String(m.content ?? '—'),
        answer: answerMessage === index && answerCall === null,
      });
      return;
    }
    const stepCalls: ShownCall[] = (m.tool_calls ?? []).map((c: any, k: number) => ({
      name: c.name,
      id: ` (${c.id})`,
      args: expectedArgs(c),
      answer: answerMessage === index && answerCall === k,
      results: [],
    }));
    for (const [k, c] of (m.tool_calls ?? []).entries()) calls.set(c.id, stepCalls[k]!);
    steps.push({
      index,
      role: m.role,
      content: text(m.content),
      answer: answerMessage === index && answerCall === null,
      calls: stepCalls,
    });
  });
  return steps;
}

async function openSample(page: Page, rec: WrittenRecord, sampleId: string): Promise<void> {
  const { record, row } = await rowOf(rec, sampleId);
  await openView(page, viewUrl(server.url, `#/sample?record=${record}&row=${row}`));
}

test(
  'the replayed agent example: every sample of both models, turn by turn, results under their calls',
  browserTest,
  async () => {
    await browser.withContext(async (context) => {
      const w = await watchedPage(context, new URL(server.url).origin);
      assert.equal(records.replay.size, 2);
      let pages = 0;
      for (const rec of records.replay.values()) {
        // One row per sample (the rows of one sample's scorers share its transcript): its numeric row.
        for (const row of rec.rows.filter((r: any) => r.evaluation_result_id.endsWith('.numeric'))) {
          await openSample(w.page, rec, row.sample_id);
          const shown = await readPage(w.page);
          assert.deepEqual(
            shown.steps,
            expectedSteps(row),
            `${rec.aggregate.model_info.id} ${row.sample_id}`,
          );
          assert.equal(shown.fields['Stop reason'], row.metadata.stop_reason);
          assert.equal(shown.fields['Interaction'], 'agentic');
          assert.equal(shown.fields['Model turns'], String(row.evaluation.num_turns));
          assert.equal(shown.fields['Tool calls'], String(row.evaluation.tool_calls_count));
          assert.equal(shown.finalAnswer, row.metadata.final_answer);
          assert.equal(shown.answerSource, row.answer_attribution[0].source);
          // Every tool message is shown once, under its call.
          const results = shown.steps.flatMap((s) => s.calls.flatMap((c) => c.results));
          assert.equal(results.length, row.messages.filter((m: any) => m.role === 'tool').length);
          pages++;
        }
      }
      assert.equal(pages, 8);
      assert.deepEqual(w.problems, []);
    });
  },
);

test(
  'a local-server run: failed results marked, a long output cut until asked, hostile texts shown as text',
  browserTest,
  async () => {
    await browser.withContext(async (context) => {
      const w = await watchedPage(context, new URL(server.url).origin);
      const page = w.page;
      const rec = records.local!;
      const row = rec.rows.find((r: any) => r.sample_id.startsWith('busy'));
      await openSample(page, rec, row.sample_id);

      // Before anything is opened: the long result shows its head and says how much there is.
      const before = await readPage(page, false);
      const long = before.steps[1]!.calls.find((c) => c.id === ' (long)')!.results[0]!;
      assert.ok(
        long.text.length < LONG_RESULT.length / 2,
        `cut: ${long.text.length} of ${LONG_RESULT.length}`,
      );
      assert.ok(LONG_RESULT.startsWith(long.text.replace(/…$/, '')), 'the head of the result');
      assert.equal(
        await page.locator('[data-testid=tool-result] .long-text > button').first().innerText(),
        `Show all (${LONG_LINES} lines, ${LONG_RESULT.length.toLocaleString('en-US')} characters)`,
      );

      const shown = await readPage(page);
      assert.deepEqual(shown.steps, expectedSteps(row));
      const results = shown.steps[1]!.calls.map((c) => [c.name, c.results.map((r) => r.error)]);
      assert.deepEqual(results, [
        ['weather', [null]],
        ['weather', ['tool.bad-json']],
        [XSS.img, ['tool.unknown']],
        ['weather', [null]],
      ]);
      assert.equal(await page.locator('[data-testid=tool-result].is-error').count(), 2);
      assert.equal(shown.steps[1]!.calls[0]!.results[0]!.text, LONG_RESULT, 'the whole result once opened');
      assert.equal(
        await page
          .locator('[data-testid=tool-call] .badge.warn')
          .allInnerTexts()
          .then((t) => t.length),
        1,
        'only the broken call is flagged as not JSON',
      );
      assert.equal(shown.fields['Stop reason'], 'answered');
      assert.equal(shown.finalAnswer, `calm ${XSS.img}`);

      // Nothing from the texts became markup or ran.
      const seen = await page.evaluate(() => ({
        pwned: (window as unknown as { __pwned?: number }).__pwned ?? null,
        title: document.title,
        images: document.querySelectorAll('main img').length,
        scripts: document.querySelectorAll('main script').length,
        links: [...document.querySelectorAll('main a')].filter(
          (a) => !a.getAttribute('href')?.startsWith('#/'),
        ).length,
        text: document.querySelector('main')!.textContent ?? '',
      }));
      assert.deepEqual(
        {
          pwned: seen.pwned,
          title: seen.title,
          images: seen.images,
          scripts: seen.scripts,
          links: seen.links,
        },
        { pwned: null, title: 'evalkit view', images: 0, scripts: 0, links: 0 },
      );
      for (const x of [XSS.script, XSS.img, XSS.link, XSS.markdownLink]) assert.ok(seen.text.includes(x), x);
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: join(SHOTS, 'transcript-local.png'), fullPage: true });
      assert.deepEqual(w.problems, []);
    });
  },
);

test(
  'a conversation longer than one window: the first steps, then the rest on asking',
  browserTest,
  async () => {
    await browser.withContext(async (context) => {
      const w = await watchedPage(context, new URL(server.url).origin);
      const rec = records.local!;
      const row = rec.rows.find((r: any) => r.sample_id.startsWith('endless'));
      assert.equal(row.metadata.stop_reason, 'limit:max_turns');
      const steps = expectedSteps(row);
      assert.equal(steps.length, ENDLESS_TURNS + 1);
      await openSample(w.page, rec, row.sample_id);
      const first = await readPage(w.page);
      assert.deepEqual(first.steps, steps.slice(0, 200));
      const more = w.page.locator('button.more-steps');
      assert.equal(
        await more.innerText(),
        `Show ${steps.length - 200} more of ${steps.length - 200} remaining`,
      );
      await more.click();
      await w.page.waitForFunction(
        (n) => document.querySelectorAll('[data-testid=transcript] > li').length === n,
        steps.length,
      );
      assert.deepEqual((await readPage(w.page)).steps, steps);
      assert.equal(await more.count(), 0);
      assert.equal((await readPage(w.page)).fields['Stop reason'], 'limit:max_turns');
      assert.deepEqual(w.problems, []);
    });
  },
);

test(
  "real Inspect logs with tool calls, converted: the same transcript, the limit and the scorer's answer",
  browserTest,
  async (t: TestContext) => {
    for (const [name, path] of Object.entries(INSPECT_LOGS))
      await withReference(t, path, `the Inspect ${name} log`, async () => {
        const recs = [...records.inspect].filter(([k]) => k.startsWith(`${name} `));
        assert.equal(recs.length, 1, name);
        const rec = recs[0]![1];
        const agentic = rec.rows.filter((r: any) => r.interaction_type === 'agentic');
        assert.ok(agentic.length > 0, `${name}: agentic rows`);
        await browser.withContext(async (context) => {
          const w = await watchedPage(context, new URL(server.url).origin);
          for (const row of rec.rows.filter((r: any) => r.messages)) {
            await openSample(w.page, rec, row.sample_id);
            const shown = await readPage(w.page);
            assert.deepEqual(shown.steps, expectedSteps(row), `${name} ${row.sample_id}`);
            const limit = row.metadata.limit ? JSON.parse(row.metadata.limit) : null;
            assert.equal(
              shown.fields['Stop reason'],
              limit ? `limit:${limit.type} (${limit.limit})` : '—',
              `${name} ${row.sample_id}`,
            );
            const terminal = row.answer_attribution.find((a: any) => a.is_terminal);
            if (terminal) assert.equal(shown.finalAnswer, terminal.extracted_value);
            const calls = shown.steps.flatMap((s) => s.calls);
            assert.equal(calls.length, row.evaluation.tool_calls_count ?? 0);
          }
          assert.deepEqual(w.problems, []);
        });
      });
  },
);
