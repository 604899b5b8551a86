// The transcript of an agentic or multi-turn instance row, turn by turn: each model turn with its text, its
// reasoning and its tool calls, each call with its arguments and, under it, the result that answers it (a failed
// call's result marked), the message holding the final answer marked too. Long texts are shown cut with a button
// for the rest, and a long conversation a window of steps at a time, so a page of a thousand turns stays quick.
// Every text is a child (a text node), never HTML.
import { useState } from 'preact/hooks';
import { fmt, TextBlock } from './ui.js';
import {
  argumentsText,
  collapsedHead,
  lineCount,
  text,
  transcriptSteps,
  type CallView,
  type Message,
  type Outcome,
  type Result,
  type Step,
} from './transcript-model.js';

/** Steps rendered at first, and added by each "show more". */
export const STEP_WINDOW = 200;

const roleClass = (role: unknown) => `role-${String(role ?? 'unknown').replace(/[^a-z_]/gi, '')}`;

/** A text shown whole when short, else its head and a button that shows the rest (rendered only then). */
export function LongText(props: { text: string | null; label?: string }) {
  const [open, setOpen] = useState(false);
  const whole = props.text;
  const head = whole === null ? null : collapsedHead(whole);
  if (whole === null || head === null) return <TextBlock text={whole} label={props.label} />;
  return (
    <div class={`long-text${open ? ' open' : ''}`}>
      <TextBlock text={open ? whole : `${head}…`} label={props.label} />
      <button type="button" class="link" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? 'Show less' : `Show all (${fmt(lineCount(whole))} lines, ${fmt(whole.length)} characters)`}
      </button>
    </div>
  );
}

function ToolResult(props: { result: Result; answer: boolean }) {
  const { message, error } = props.result;
  return (
    <div
      class={`tool-result${error !== null ? ' is-error' : ''}`}
      data-testid="tool-result"
      data-error={error ?? undefined}
    >
      <div class="message-head">
        <span class="muted">result</span>
        <span class="muted"> · message {props.result.index}</span>
        {error !== null ? <span class="badge bad">error: {error}</span> : null}
        {props.answer ? <span class="badge good">final answer</span> : null}
      </div>
      <LongText text={text(message.content)} label="tool result" />
    </div>
  );
}

function ToolCallView(props: { view: CallView; answer: boolean; resultAnswer: (index: number) => boolean }) {
  const { call, results } = props.view;
  const args = argumentsText(call);
  return (
    <div class="tool-call" data-testid="tool-call" data-name={String(call.name ?? '')}>
      <div class="message-head">
        <span class="muted">tool call</span> <span class="mono tool-name">{String(call.name ?? '?')}</span>
        {call.id !== undefined && call.id !== null ? (
          <span class="muted mono"> ({String(call.id)})</span>
        ) : null}
        {!args.parsed && args.text !== '' ? <span class="badge warn">arguments are not JSON</span> : null}
        {props.answer ? <span class="badge good">final answer</span> : null}
      </div>
      {args.text !== '' ? <LongText text={args.text} label="arguments" /> : null}
      {results.length === 0 ? (
        <p class="muted no-result">no result in the transcript</p>
      ) : (
        results.map((r) => <ToolResult result={r} answer={props.resultAnswer(r.index)} />)
      )}
    </div>
  );
}

function StepView(props: { step: Step; outcome: Outcome | null }) {
  const { message: m, index, calls, unmatched, error } = props.step;
  const at = props.outcome?.answerAt ?? null;
  const contentAnswer = at !== null && at.message === index && at.call === null;
  const resultAnswer = (i: number) => at !== null && at.message === i && at.call === null;
  return (
    <li
      class={`message ${roleClass(m.role)}${error !== null ? ' is-error' : ''}`}
      data-testid="message"
      data-role={String(m.role ?? '')}
      data-index={index}
    >
      <div class="message-head">
        <strong>{String(m.role ?? '?')}</strong>
        {m.turn_idx !== undefined ? <span class="muted"> · turn {String(m.turn_idx)}</span> : null}
        {unmatched ? (
          <span class="muted"> · answers {unmatched.join(', ')} (no such call before it)</span>
        ) : null}
        {error !== null ? <span class="badge bad">error: {error}</span> : null}
        {contentAnswer ? <span class="badge good">final answer</span> : null}
      </div>
      {m.content !== null && m.content !== undefined && m.content !== '' ? (
        <LongText text={text(m.content)} label={`${String(m.role ?? '')} message`} />
      ) : null}
      {m.reasoning_trace ? (
        <details>
          <summary>reasoning</summary>
          <LongText text={text(m.reasoning_trace)} label="reasoning" />
        </details>
      ) : null}
      {calls.map((view) => (
        <ToolCallView
          view={view}
          answer={at !== null && at.message === index && at.call === view.position}
          resultAnswer={resultAnswer}
        />
      ))}
    </li>
  );
}

/** The conversation; `outcome` marks where the final answer is. */
export function Transcript(props: { messages: Message[]; outcome?: Outcome | null }) {
  const [shown, setShown] = useState(STEP_WINDOW);
  const steps = transcriptSteps(props.messages);
  const rest = steps.length - shown;
  return (
    <>
      <ol class="transcript" data-testid="transcript">
        {steps.slice(0, shown).map((step) => (
          <StepView step={step} outcome={props.outcome ?? null} />
        ))}
      </ol>
      {rest > 0 ? (
        <button type="button" class="more-steps" onClick={() => setShown(shown + STEP_WINDOW)}>
          Show {fmt(Math.min(rest, STEP_WINDOW))} more of {fmt(rest)} remaining
        </button>
      ) : null}
    </>
  );
}
