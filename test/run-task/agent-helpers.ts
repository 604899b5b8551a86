// Shared by the agent-task tests (OpenAI and Anthropic tool use): the weather task, and reading its rows back.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { cli, type CliResult } from '../helpers/cli.js';
import type { ProviderServer, Script } from '../helpers/provider-server.js';
import { recordsUnder, writeTask, type WrittenRecord } from './helpers.js';

/** The weather table: a city's temperature. */
export const WEATHER = [
  { arguments: { city: 'Paris' }, result: { temp_c: 18 } },
  { arguments: { city: 'Oslo' }, result: { temp_c: 4 } },
];

/** The tools of the weather tasks: a weather table (weather.jsonl), the calculator and submit. */
export const TOOLS = `tools:
  - name: weather
    description: Current temperature of a city
    parameters: {type: object, properties: {city: {type: string}}, required: [city], additionalProperties: false}
    table: weather.jsonl
  - {name: calculator, builtin: calculator}
  - {name: submit, builtin: submit}
`;

/** An agent task under `dir/name` with the weather table, the calculator and submit; `extra` adds to the task file. */
export function writeAgentTask(
  dir: string,
  name: string,
  extra = '',
  rows: object[] = [{ id: 'q1', input: 'go', target: '14' }],
): string {
  return writeTask(
    join(dir, name),
    name,
    `name: ${name}\ndataset: {path: ${name}.jsonl}\n${TOOLS}${extra}`,
    rows,
    { 'weather.jsonl': WEATHER.map((r) => JSON.stringify(r)).join('\n') + '\n' },
  );
}

/** The one record a run wrote under `out`. */
export function onlyRecord(out: string): WrittenRecord {
  const records = [...recordsUnder(out).values()];
  assert.equal(records.length, 1);
  return records[0];
}

/** What the test reads back from a row's messages: the calls in order. */
export function callsOf(row: any): { name: string; args: any }[] {
  return row.messages
    .filter((m: any) => m.role === 'assistant')
    .flatMap((m: any) =>
      (m.tool_calls ?? []).map((c: any) => {
        let args: any = null;
        try {
          args = JSON.parse(c.arguments_json);
        } catch {}
        return { name: c.name, args };
      }),
    );
}

/** The model's turns of a row (its assistant messages). */
export const modelTurns = (row: any): number =>
  row.messages.filter((m: any) => m.role === 'assistant').length;

/**
 * A two-sample weather-then-calculator task run live with --record (`runLive`: the run through one protocol), then
 * with --provider replay from the recording: nothing is sent and the rows are the live run's. `results` reads a
 * request's tool results (their content, in order) as the protocol carries them.
 */
export async function assertRecordReplay(options: {
  dir: string;
  server: ProviderServer;
  model: string;
  results: (body: any) => string[];
  runLive: (task: string, out: string, script: Script, extra: string[]) => Promise<CliResult>;
}): Promise<void> {
  const { dir, server, results } = options;
  const task = writeAgentTask(
    dir,
    'rec',
    'scorers: [numeric, {tool_sequence: {names: [weather, calculator]}}]\n',
    [
      { id: 'a', input: 'paris minus oslo', target: '14' },
      { id: 'b', input: 'oslo minus paris', target: '-14' },
    ],
  );
  const fixture = join(dir, 'rec.fixture.jsonl');
  const live = join(dir, 'rec-live');
  const script: Script = (ctx) => {
    const got = results(ctx.body);
    if (got.length === 0)
      return {
        toolCalls: [
          { id: 'p', name: 'weather', arguments: '{"city": "Paris"}' },
          { id: 'o', name: 'weather', arguments: '{"city": "Oslo"}' },
        ],
      };
    if (got.length === 2) {
      const expression = ctx.sampleId.split(':')[1] === 'a' ? '18 - 4' : '4 - 18';
      return { toolCalls: [{ id: 'c', name: 'calculator', arguments: JSON.stringify({ expression }) }] };
    }
    return { text: `It is ${got[2]}` };
  };
  const result = await options.runLive(task, live, script, ['--record', fixture]);
  assert.equal(result.code, 0, result.stderr);
  const first = server.requests.length;
  const replayed = join(dir, 'rec-replay');
  const r = await cli([
    'run',
    task,
    '--provider',
    'replay',
    '--replay-from',
    fixture,
    '--model',
    options.model,
    '-o',
    replayed,
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(server.requests.length, first);
  const rowsOf = (root: string) =>
    onlyRecord(root).rows.map((x: any) => [x.sample_id, x.messages, x.evaluation, x.metadata.stop_reason]);
  assert.deepEqual(rowsOf(replayed), rowsOf(live));
  assert.deepEqual(
    onlyRecord(replayed).rows.map((x: any) => x.evaluation.score),
    [1, 1, 1, 1],
  );
}
