import type { Route } from '../route.js';
import { href } from '../route.js';
import { fmt, Fields, Json, Show, TextBlock, useApi } from '../ui.js';
import type { SampleDetail } from '../../shared/types.js';
import { PromptBlock } from '../messages.js';

interface Message {
  turn_idx?: number;
  role?: string;
  content?: unknown;
  reasoning_trace?: unknown;
  tool_calls?: { id?: string; name?: string; arguments?: unknown }[] | null;
  tool_call_id?: unknown;
}

const asText = (v: unknown): string | null =>
  v === null || v === undefined
    ? null
    : typeof v === 'string'
      ? v
      : Array.isArray(v) && v.every((x) => typeof x === 'string')
        ? v.join('\n')
        : JSON.stringify(v, null, 2);

function Transcript(props: { messages: Message[] }) {
  return (
    <ol class="transcript" data-testid="transcript">
      {props.messages.map((m) => (
        <li class={`message role-${String(m.role ?? 'unknown').replace(/[^a-z_]/gi, '')}`}>
          <div class="message-head">
            <strong>{String(m.role ?? '?')}</strong>
            {m.turn_idx !== undefined ? <span class="muted"> · turn {m.turn_idx}</span> : null}
            {m.tool_call_id ? <span class="muted"> · answers {asText(m.tool_call_id)}</span> : null}
          </div>
          {m.content !== null && m.content !== undefined ? <TextBlock text={asText(m.content)} /> : null}
          {m.reasoning_trace ? (
            <details>
              <summary>reasoning</summary>
              <TextBlock text={asText(m.reasoning_trace)} />
            </details>
          ) : null}
          {(m.tool_calls ?? []).map((call) => (
            <div class="tool-call">
              <span class="muted">tool call</span> <span class="mono">{String(call.name ?? '?')}</span>
              {call.id ? <span class="muted"> ({String(call.id)})</span> : null}
              <TextBlock text={asText(call.arguments)} />
            </div>
          ))}
        </li>
      ))}
    </ol>
  );
}

export function SamplePage(props: { route: Route }) {
  const { record, row } = props.route.params;
  const loaded = useApi<SampleDetail>('sample', { record, row });
  return (
    <Show loaded={loaded}>
      {(s) => {
        const raw = s.raw;
        const output = (raw.output ?? null) as { reasoning_trace?: unknown } | null;
        const messages = Array.isArray(raw.messages) ? (raw.messages as Message[]) : [];
        return (
          <>
            <h1>
              Sample <span class="mono">{s.sample_id}</span>
            </h1>
            <Fields
              rows={[
                ['Model', <a href={href('model', { id: s.model_id })}>{s.model_id}</a>],
                ['Evaluation', s.evaluation_name],
                ['Record', <a href={href('record', { key: s.record_key })}>{s.record_key.slice(0, 16)}…</a>],
                ['Row', fmt(s.row_index)],
                ['Interaction', s.interaction_type],
                ['Score', fmt(s.score, 4)],
                ['Correct', s.is_correct === null ? null : s.is_correct ? 'yes' : 'no'],
                ['Sample hash', <span class="mono">{s.sample_hash ?? '—'}</span>],
              ]}
            />
            <h2>Input</h2>
            <PromptBlock text={s.input_text} label="input" />
            <h2>Reference</h2>
            <TextBlock text={s.reference_text} label="reference" />
            <h2>Output</h2>
            <TextBlock text={s.output_text} label="output" />
            {output?.reasoning_trace ? (
              <>
                <h2>Reasoning trace</h2>
                <TextBlock text={asText(output.reasoning_trace)} label="reasoning" />
              </>
            ) : null}
            {messages.length > 0 ? (
              <>
                <h2>Transcript ({messages.length} messages)</h2>
                <Transcript messages={messages} />
              </>
            ) : null}
            <details>
              <summary>The whole instance row (JSON)</summary>
              <Json value={raw} />
            </details>
          </>
        );
      }}
    </Show>
  );
}
