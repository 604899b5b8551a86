/**
 * The agent loop of a task with tools: model → tool calls (several in one turn allowed) → results → next turn, until
 * the model answers without calling a tool, calls `submit`, or a limit is reached. Each model turn is one journaled
 * call (key `turn/<sample>/<n>`), and each turn's tool results one journal line (`tools/<sample>/<n>`), so a killed
 * run resumes every sample at its last completed turn and pays no turn twice; the conversation is rebuilt from the
 * journal. Limits are checked between turns on journaled quantities only (turns, tool calls, tokens, model latency
 * and tool time, the cost of the turns' usage at the model's price), so a resumed run stops where an uninterrupted one would.
 */
import type { CompletionRequest, ProviderMessage, ProviderToolCall } from '../providers/provider.js';
import type { CallRecord } from './types.js';
import {
  parseArguments,
  runToolCall,
  toolDeclarations,
  type TaskLimits,
  type TaskTool,
  type ToolOutcome,
  type ToolRunContext,
} from './tools.js';
import type { ChatMessage, Trajectory } from './types.js';

export type StopReason =
  | 'answered'
  | 'submit'
  | 'error'
  | 'limit:max_turns'
  | 'limit:max_tool_calls'
  | 'limit:token_limit'
  | 'limit:time_limit_s'
  | 'limit:cost_limit_usd';

export interface AgentTurn {
  call: CallRecord;
  /** The results of the turn's tool calls, in the calls' order (absent when the turn called none or was not run). */
  results?: ToolOutcome[];
}

export interface AgentTrace {
  turns: AgentTurn[];
  stop: StopReason;
  /** The final answer: the last reply's text, or what `submit` was given. */
  answer: string;
  toolCalls: number;
}

/** The journal line of one turn's tool results. */
export interface ToolsRecord {
  sample_index: number;
  tool_results: ToolOutcome[];
  tool_ms: number;
}

export interface AgentDeps {
  tools: readonly TaskTool[];
  limits: TaskLimits;
  /** The prompt (system first when there is one). */
  messages: ChatMessage[];
  /** The request of a turn, given the conversation so far and its index. */
  request(messages: ProviderMessage[], turn: number): CompletionRequest;
  /** A model turn: journaled, or taken from the journal. */
  call(turn: number, request: CompletionRequest): Promise<CallRecord>;
  /** A turn's tool results from the journal, if it holds them. */
  journaledTools(turn: number): ToolsRecord | undefined;
  /** Journals a turn's tool results. */
  saveTools(turn: number, record: ToolsRecord): void;
  /** Where and how command tools run for this sample. */
  toolContext?: ToolRunContext;
  epoch: number;
  /** A turn's cost in US dollars from its usage (given when the model has a price; unknown usage counts 0). */
  cost?: (usage: CallRecord['usage']) => number;
}

/** The conversation after the system message, as the provider sends it. */
export function providerMessages(messages: ChatMessage[]): ProviderMessage[] {
  return messages
    .filter((m, i) => !(i === 0 && m.role === 'system'))
    .map((m) =>
      m.role === 'assistant'
        ? { role: 'assistant', content: m.content }
        : { role: 'user', content: m.content },
    );
}

export async function agentLoop(deps: AgentDeps): Promise<AgentTrace> {
  const { limits } = deps;
  const conversation = providerMessages(deps.messages);
  const turns: AgentTurn[] = [];
  let toolCalls = 0;
  let tokens = 0;
  let elapsedMs = 0;
  let spent = 0;
  const overTime = (): boolean =>
    limits.time_limit_s !== undefined && elapsedMs >= limits.time_limit_s * 1000;
  const lastText = (): string => turns.at(-1)?.call.text ?? '';
  for (let n = 0; ; n++) {
    if (n >= limits.max_turns) return { turns, stop: 'limit:max_turns', answer: lastText(), toolCalls };
    const call = await deps.call(n, deps.request(conversation, n));
    const turn: AgentTurn = { call };
    turns.push(turn);
    if (call.error !== undefined) return { turns, stop: 'error', answer: '', toolCalls };
    tokens += (call.usage?.input_tokens ?? 0) + (call.usage?.output_tokens ?? 0);
    elapsedMs += call.latency_ms;
    spent += deps.cost?.(call.usage) ?? 0;
    const calls = call.tool_calls ?? [];
    conversation.push({
      role: 'assistant',
      content: call.text ?? '',
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    });
    if (calls.length === 0) return { turns, stop: 'answered', answer: call.text ?? '', toolCalls };
    if (limits.max_tool_calls !== undefined && toolCalls + calls.length > limits.max_tool_calls)
      return { turns, stop: 'limit:max_tool_calls', answer: call.text ?? '', toolCalls };
    let record = deps.journaledTools(n);
    if (record === undefined || record.tool_results.length !== calls.length) {
      const t0 = performance.now();
      // One after another, in the model's order: command tools share the sample's folder.
      const results: ToolOutcome[] = [];
      for (const c of calls) results.push(await runToolCall(deps.tools, c, deps.toolContext));
      record = {
        sample_index: deps.epoch,
        tool_results: results,
        tool_ms: Math.round(performance.now() - t0),
      };
      deps.saveTools(n, record);
    }
    turn.results = record.tool_results;
    toolCalls += calls.length;
    elapsedMs += record.tool_ms;
    calls.forEach((c, i) => {
      const result = record.tool_results[i];
      conversation.push({
        role: 'tool',
        content: result.content,
        tool_call_id: c.id,
        ...(result.error !== undefined ? { is_error: true } : {}),
      });
    });
    const submitted = record.tool_results.find((r) => r.submitted !== undefined);
    if (submitted !== undefined) return { turns, stop: 'submit', answer: submitted.submitted!, toolCalls };
    if (limits.token_limit !== undefined && tokens >= limits.token_limit)
      return { turns, stop: 'limit:token_limit', answer: call.text ?? '', toolCalls };
    if (overTime()) return { turns, stop: 'limit:time_limit_s', answer: call.text ?? '', toolCalls };
    if (limits.cost_limit_usd !== undefined && spent >= limits.cost_limit_usd)
      return { turns, stop: 'limit:cost_limit_usd', answer: call.text ?? '', toolCalls };
  }
}

/** The tool calls and turns of a trace, as the trajectory scorers read them. */
export function trajectoryOf(trace: AgentTrace): Trajectory {
  const calls = trace.turns.flatMap((t, turn) =>
    (t.call.tool_calls ?? []).map((c: ProviderToolCall) => {
      const args = parseArguments(c.arguments);
      return { name: c.name, turn, arguments: args.ok ? args.value : null };
    }),
  );
  return { calls, turns: trace.turns.filter((t) => t.call.error === undefined).length };
}

/**
 * An agent sample's conversation as text, for a judge's `{{transcript}}`: one block per message — `[role]` and its
 * text, each tool call as `[assistant → name] arguments` and each result as `[tool name] result`.
 */
export function transcriptText(prompt: ChatMessage[], trace: AgentTrace): string {
  const blocks = prompt.map((m) => `[${m.role}]\n${m.content}`);
  for (const turn of trace.turns) {
    if (turn.call.error !== undefined) continue;
    if (turn.call.text) blocks.push(`[assistant]\n${turn.call.text}`);
    (turn.call.tool_calls ?? []).forEach((c, i) => {
      blocks.push(`[assistant → ${c.name}]\n${c.arguments}`);
      const result = turn.results?.[i];
      if (result !== undefined) blocks.push(`[tool ${c.name}]\n${result.content}`);
    });
  }
  return blocks.join('\n\n');
}

export { toolDeclarations };
