// The transcript page's reading of a row (src/view/app/transcript-model.ts), on the cases the recorded runs of
// transcript-page.test.ts do not hold: call ids reused from turn to turn, a result that answers no call, Inspect's
// error objects, arguments sent as a string, the fallbacks of the stop reason and the final answer, where long texts
// are cut.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  argumentsText,
  collapsedHead,
  COLLAPSE_CHARS,
  COLLAPSE_LINES,
  outcomeOf,
  transcriptSteps,
  type Message,
} from '../../src/view/app/transcript-model.js';

const call = (id: string, name = 'bash') => ({ id, name, arguments: { cmd: id } });

test('a call id reused in later turns pairs each result with its own turn; an unknown id stays a step', () => {
  const messages: Message[] = [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: null, tool_calls: [call('call_0')] },
    { role: 'tool', content: 'first', tool_call_id: ['call_0'] },
    { role: 'assistant', content: null, tool_calls: [call('call_0'), call('call_1')] },
    { role: 'tool', content: 'second', tool_call_id: ['call_0'] },
    { role: 'tool', content: 'third', tool_call_id: 'call_1' },
    { role: 'tool', content: 'stray', tool_call_id: ['call_9'] },
    { role: 'assistant', content: 'done' },
  ];
  const steps = transcriptSteps(messages);
  assert.deepEqual(
    steps.map((s) => [s.index, s.calls.map((c) => c.results.map((r) => r.message.content))]),
    [
      [0, []],
      [1, [['first']]],
      [3, [['second'], ['third']]],
      [6, []],
      [7, []],
    ],
  );
  assert.deepEqual(steps[3]!.unmatched, ['call_9']);
  assert.equal(steps[1]!.unmatched, null);
});

test("errors: a code, Inspect's {type, message}, none", () => {
  const steps = transcriptSteps([
    { role: 'assistant', content: null, tool_calls: [call('a'), call('b'), call('c')] },
    { role: 'tool', content: 'error: …', tool_call_id: ['a'], error: 'tool.timeout' },
    { role: 'tool', content: '', tool_call_id: ['b'], error: { type: 'timeout', message: 'Timed out.' } },
    { role: 'tool', content: 'ok', tool_call_id: ['c'], error: null },
  ]);
  assert.deepEqual(
    steps[0]!.calls.map((c) => c.results[0]!.error),
    ['tool.timeout', 'timeout: Timed out.', null],
  );
});

test('arguments: the text sent as pretty JSON when it parses, else as sent; a recorded map as JSON', () => {
  assert.deepEqual(argumentsText({ arguments_json: '{"a":1}', arguments: { a: '1' } }), {
    text: '{\n  "a": 1\n}',
    parsed: true,
  });
  assert.deepEqual(argumentsText({ arguments_json: '{"a": ', arguments: null }), {
    text: '{"a": ',
    parsed: false,
  });
  assert.deepEqual(argumentsText({ arguments: '[1,2]' }), { text: '[\n  1,\n  2\n]', parsed: true });
  assert.deepEqual(argumentsText({ arguments: { q: 'x' } }), { text: '{\n  "q": "x"\n}', parsed: true });
  assert.deepEqual(argumentsText({}), { text: '', parsed: false });
});

test("the outcome: evalkit run's metadata, else an Inspect limit and the terminal attribution, else the output text", () => {
  assert.deepEqual(
    outcomeOf(
      {
        metadata: { stop_reason: 'submit', final_answer: '14' },
        answer_attribution: [{ source: 'messages[7].tool_calls[0].arguments.answer', is_terminal: true }],
      },
      null,
    ),
    {
      stopReason: 'submit',
      finalAnswer: '14',
      answerSource: 'messages[7].tool_calls[0].arguments.answer',
      answerAt: { message: 7, call: 0 },
      error: null,
    },
  );
  const inspect = outcomeOf(
    {
      metadata: { limit: '{"type":"message","limit":100}' },
      answer_attribution: [{ source: 'messages[98].content', extracted_value: '9.00', is_terminal: true }],
      error: 'boom',
    },
    'last text',
  );
  assert.equal(inspect.stopReason, 'limit:message (100)');
  assert.equal(inspect.finalAnswer, '9.00');
  assert.deepEqual(inspect.answerAt, { message: 98, call: null });
  assert.equal(inspect.error, 'boom');
  const bare = outcomeOf({}, 'last text');
  assert.equal(bare.stopReason, null);
  assert.equal(bare.finalAnswer, 'last text');
  assert.equal(bare.answerAt, null);
});

test('long texts are cut at COLLAPSE_LINES lines or COLLAPSE_CHARS characters, never inside a surrogate pair', () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `l${i}`).join('\n');
  assert.equal(collapsedHead(lines(COLLAPSE_LINES)), null, 'as many lines as shown: whole');
  assert.equal(collapsedHead(lines(COLLAPSE_LINES + 1)), lines(COLLAPSE_LINES));
  assert.equal(collapsedHead('x'.repeat(COLLAPSE_CHARS)), null);
  assert.equal(collapsedHead('x'.repeat(COLLAPSE_CHARS + 1)), 'x'.repeat(COLLAPSE_CHARS));
  const emoji = 'x'.repeat(COLLAPSE_CHARS - 1) + '😀' + 'y';
  assert.equal(collapsedHead(emoji), 'x'.repeat(COLLAPSE_CHARS - 1));
});
