// What the transcript of an agentic or multi-turn instance row shows, worked out from the row (no rendering here):
// the messages grouped into steps, each tool result placed under the call it answers (by tool_call_id), the
// arguments as pretty JSON when they parse, the stop reason and the final answer with where it came from.

export interface ToolCall {
  id?: unknown;
  name?: unknown;
  arguments?: unknown;
  /** evalkit run: the exact text the model sent (EEE wants `arguments` as a map of strings). */
  arguments_json?: unknown;
}

export interface Message {
  turn_idx?: unknown;
  role?: unknown;
  content?: unknown;
  reasoning_trace?: unknown;
  tool_calls?: ToolCall[] | null;
  /** EEE: the ids of the calls this message answers (a list; a string read too). */
  tool_call_id?: unknown;
  /** evalkit run: the error code of a failed call's result. */
  error?: unknown;
}

export interface Result {
  message: Message;
  /** Its position in `messages`. */
  index: number;
  /** The error of a failed call's result (its code), null when it did not fail. */
  error: string | null;
}

export interface CallView {
  call: ToolCall;
  /** Its position: messages[message].tool_calls[position]. */
  position: number;
  results: Result[];
}

export interface Step {
  message: Message;
  index: number;
  calls: CallView[];
  /** A tool message whose call is not in the transcript: the ids it names. */
  unmatched: string[] | null;
  error: string | null;
}

export const text = (v: unknown): string | null =>
  v === null || v === undefined
    ? null
    : typeof v === 'string'
      ? v
      : Array.isArray(v) && v.every((x) => typeof x === 'string')
        ? v.join('\n')
        : JSON.stringify(v, null, 2);

function ids(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** The error of a tool message: a code (evalkit run), an {type, message} object (Inspect), or true. */
function errorOf(m: Message): string | null {
  const e = m.error;
  if (e === null || e === undefined || e === false || e === '') return null;
  if (typeof e === 'string') return e;
  if (typeof e === 'object') {
    const { type, message } = e as { type?: unknown; message?: unknown };
    const parts = [type, message].filter((p): p is string => typeof p === 'string' && p !== '');
    if (parts.length > 0) return parts.join(': ');
  }
  return typeof e === 'boolean' ? 'error' : JSON.stringify(e);
}

/**
 * The steps of a conversation: every message once, in order, except tool results, which go under the call they
 * answer. A result answers the latest earlier call with its id that has no result yet (ids reused across turns
 * pair with their own turn), else the latest earlier call with that id; a result whose id matches no earlier call
 * stays a step of its own, marked unmatched.
 */
export function transcriptSteps(messages: readonly Message[]): Step[] {
  const steps: Step[] = [];
  const callsById = new Map<string, CallView[]>();
  messages.forEach((raw, index) => {
    const message = raw && typeof raw === 'object' ? raw : ({ content: raw } as Message);
    const error = errorOf(message);
    const answers = ids(message.tool_call_id);
    if (answers.length > 0) {
      const candidates = callsById.get(answers[0]!) ?? [];
      const call = candidates.find((c) => c.results.length === 0) ?? candidates[candidates.length - 1];
      if (call) {
        call.results.push({ message, index, error });
        return;
      }
    }
    const calls: CallView[] = (Array.isArray(message.tool_calls) ? message.tool_calls : []).map(
      (call, position) => ({ call: call ?? {}, position, results: [] }),
    );
    for (const c of calls) {
      if (typeof c.call.id !== 'string') continue;
      const list = callsById.get(c.call.id) ?? [];
      // Latest first, so that a reused id pairs with its own turn.
      list.unshift(c);
      callsById.set(c.call.id, list);
    }
    steps.push({ message, index, calls, unmatched: answers.length > 0 ? answers : null, error });
  });
  return steps;
}

/** A call's arguments as shown: pretty JSON when the text the model sent (or the value recorded) parses. */
export function argumentsText(call: ToolCall): { text: string; parsed: boolean } {
  const sent =
    typeof call.arguments_json === 'string'
      ? call.arguments_json
      : typeof call.arguments === 'string'
        ? call.arguments
        : undefined;
  if (sent !== undefined) {
    try {
      return { text: JSON.stringify(JSON.parse(sent), null, 2), parsed: true };
    } catch {
      return { text: sent, parsed: false };
    }
  }
  if (call.arguments === undefined || call.arguments === null) return { text: '', parsed: false };
  return { text: JSON.stringify(call.arguments, null, 2), parsed: true };
}

export interface Outcome {
  stopReason: string | null;
  finalAnswer: string | null;
  /** Where the final answer is (answer_attribution's source), when the row says. */
  answerSource: string | null;
  /** The message (index) and tool call (position, or null: its content) the final answer is in. */
  answerAt: { message: number; call: number | null } | null;
  error: string | null;
}

const asObject = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** An Inspect limit kept by the converter (`metadata.limit`, an object or its JSON): `limit:<type> (<limit>)`. */
function inspectLimit(v: unknown): string | null {
  let limit = v;
  if (typeof v === 'string') {
    try {
      limit = JSON.parse(v);
    } catch {
      return `limit: ${v}`;
    }
  }
  const { type, limit: value } = asObject(limit);
  if (typeof type !== 'string') return null;
  return `limit:${type}${value !== undefined && value !== null ? ` (${text(value)})` : ''}`;
}

/**
 * How the sample ended: evalkit run's `metadata.stop_reason` and `metadata.final_answer` (EEE wants no output on
 * an agentic row), else an Inspect row's limit and the answer its scorer extracted (the terminal answer
 * attribution), else the last assistant text (`output_text`).
 */
export function outcomeOf(raw: Record<string, unknown>, outputText: string | null): Outcome {
  const metadata = asObject(raw.metadata);
  const attributions = Array.isArray(raw.answer_attribution) ? raw.answer_attribution.map(asObject) : [];
  const terminal = attributions.find((a) => a.is_terminal === true) ?? attributions[attributions.length - 1];
  const stopReason =
    typeof metadata.stop_reason === 'string'
      ? metadata.stop_reason
      : metadata.limit !== undefined
        ? inspectLimit(metadata.limit)
        : null;
  const finalAnswer =
    typeof metadata.final_answer === 'string'
      ? metadata.final_answer
      : typeof terminal?.extracted_value === 'string'
        ? terminal.extracted_value
        : outputText;
  const source = typeof terminal?.source === 'string' ? terminal.source : null;
  const at = source ? /^messages\[(\d+)\](?:\.tool_calls\[(\d+)\])?/.exec(source) : null;
  return {
    stopReason,
    finalAnswer,
    answerSource: source,
    answerAt: at ? { message: Number(at[1]), call: at[2] === undefined ? null : Number(at[2]) } : null,
    error: typeof raw.error === 'string' ? raw.error : null,
  };
}

/** Texts longer than this (characters or lines) are shown cut, with a button for the rest. */
export const COLLAPSE_CHARS = 1200;
export const COLLAPSE_LINES = 20;

/** The head shown of a long text, or null when the text is short enough to show whole. */
export function collapsedHead(s: string): string | null {
  let lineEnd = -1;
  for (let i = 0; i < COLLAPSE_LINES; i++) {
    lineEnd = s.indexOf('\n', lineEnd + 1);
    if (lineEnd < 0) break;
  }
  const byLines = lineEnd < 0 ? s.length : lineEnd;
  let cut = Math.min(byLines, COLLAPSE_CHARS);
  // Not between the two halves of a surrogate pair.
  if (cut > 0 && cut < s.length && /[\uD800-\uDBFF]/.test(s[cut - 1]!)) cut -= 1;
  return cut >= s.length ? null : s.slice(0, cut);
}

export function lineCount(s: string): number {
  let n = 1;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
  return n;
}
