import type { Route } from '../route.js';
import { href } from '../route.js';
import { fmt, Fields, Json, Show, TextBlock, useApi } from '../ui.js';
import type { SampleDetail } from '../../shared/types.js';
import { PromptBlock } from '../messages.js';
import { LongText, Transcript } from '../transcript.js';
import { outcomeOf, text, type Message } from '../transcript-model.js';
import { useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';

/** A <details> whose content is rendered only once opened (the whole row's JSON can be megabytes). */
function LazyDetails(props: { summary: string; children: () => ComponentChildren }) {
  const [open, setOpen] = useState(false);
  return (
    <details onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>{props.summary}</summary>
      {open ? props.children() : null}
    </details>
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
        // An agentic or multi-turn row: how it ended and its final answer (EEE wants no output there).
        const conversation = messages.length > 0 || s.interaction_type === 'agentic';
        const outcome = conversation ? outcomeOf(raw, s.output_text) : null;
        const evaluation = (raw.evaluation ?? {}) as { num_turns?: unknown; tool_calls_count?: unknown };
        const count = (v: unknown) => (typeof v === 'number' ? fmt(v) : null);
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
                ...(outcome
                  ? ([
                      [
                        'Stop reason',
                        outcome.stopReason ? <span class="mono">{outcome.stopReason}</span> : null,
                      ],
                      ['Model turns', count(evaluation.num_turns)],
                      ['Tool calls', count(evaluation.tool_calls_count)],
                      ...(outcome.error !== null ? [['Error', outcome.error]] : []),
                    ] as [string, ComponentChildren][])
                  : []),
              ]}
            />
            <h2>Input</h2>
            <PromptBlock text={s.input_text} label="input" />
            <h2>Reference</h2>
            <TextBlock text={s.reference_text} label="reference" />
            {outcome ? (
              <>
                <h2>Final answer</h2>
                <TextBlock text={outcome.finalAnswer} label="final answer" />
                {outcome.answerSource ? (
                  <p class="muted">
                    from <span class="mono">{outcome.answerSource}</span>
                  </p>
                ) : null}
              </>
            ) : (
              <>
                <h2>Output</h2>
                <TextBlock text={s.output_text} label="output" />
              </>
            )}
            {output?.reasoning_trace ? (
              <>
                <h2>Reasoning trace</h2>
                <LongText text={text(output.reasoning_trace)} label="reasoning" />
              </>
            ) : null}
            {messages.length > 0 ? (
              <>
                <h2>Transcript ({messages.length} messages)</h2>
                <Transcript messages={messages} outcome={outcome} />
              </>
            ) : null}
            <LazyDetails summary="The whole instance row (JSON)">{() => <Json value={raw} />}</LazyDetails>
          </>
        );
      }}
    </Show>
  );
}
