/**
 * Anthropic Messages API over the official SDK, tool use included: the task's tools are sent as `tools`
 * ({name, description, input_schema}); the reply's `tool_use` blocks become the same tool calls the OpenAI path
 * gives (`arguments` the JSON text of their `input`), and a turn's tool results go back as one `user` message of
 * `tool_result` blocks.
 */
import Anthropic from '@anthropic-ai/sdk';
import type {
  Completion,
  CompletionRequest,
  CompletionUsage,
  Provider,
  ProviderMessage,
  ProviderToolCall,
} from './provider.js';
import { sdkClientOptions, type SdkClientSettings } from './sdk-client.js';
import { emptyBody, fromSdkError } from './sdk-errors.js';

export type AnthropicProviderOptions = SdkClientSettings;

/** A tool call's JSON text as a tool_use block's input (an object; the API sent one, so this is what it sent). */
function toolInput(call: ProviderToolCall): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(call.arguments);
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // Not JSON: the model's input was no object (its tool result says so); the block still needs one.
  }
  return {};
}

/**
 * The conversation as Messages API turns: an assistant turn's text then its `tool_use` blocks, and the results that
 * follow it as one `user` message of `tool_result` blocks in the calls' order (`is_error` on error results).
 */
function anthropicMessages(messages: ProviderMessage[]): Anthropic.MessageParam[] {
  const out: Anthropic.MessageParam[] = [];
  let results: Anthropic.ToolResultBlockParam[] | undefined;
  for (const m of messages) {
    if (m.role === 'tool') {
      const block: Anthropic.ToolResultBlockParam = {
        type: 'tool_result',
        tool_use_id: m.tool_call_id,
        // An empty text block is refused by the API; a result without content is not.
        ...(m.content !== '' ? { content: m.content } : {}),
        ...(m.is_error ? { is_error: true } : {}),
      };
      if (results === undefined) {
        results = [block];
        out.push({ role: 'user', content: results });
      } else results.push(block);
      continue;
    }
    results = undefined;
    if (m.role === 'assistant' && m.tool_calls !== undefined && m.tool_calls.length > 0)
      out.push({
        role: 'assistant',
        content: [
          ...(m.content !== '' ? [{ type: 'text' as const, text: m.content }] : []),
          ...m.tool_calls.map((c): Anthropic.ToolUseBlockParam => ({
            type: 'tool_use',
            id: c.id,
            name: c.name,
            input: toolInput(c),
          })),
        ],
      });
    else out.push({ role: m.role, content: m.content });
  }
  return out;
}

export function createAnthropicProvider(options: AnthropicProviderOptions): Provider {
  const client = new Anthropic(sdkClientOptions(options));
  return {
    name: 'anthropic',
    async complete(request: CompletionRequest, signal: AbortSignal): Promise<Completion> {
      // temperature / top_p are still accepted by the Messages API but no longer typed by this SDK version.
      const body: Anthropic.MessageCreateParamsNonStreaming & { temperature?: number; top_p?: number } = {
        model: request.model,
        max_tokens: request.maxTokens,
        messages: request.messages
          ? anthropicMessages(request.messages)
          : [{ role: 'user', content: request.user }],
        temperature: request.temperature,
      };
      if (request.system !== null) body.system = request.system;
      if (request.topP !== undefined) body.top_p = request.topP;
      if (request.stop.length > 0) body.stop_sequences = request.stop;
      if (request.tools !== undefined && request.tools.length > 0)
        body.tools = request.tools.map((t) => ({
          name: t.name,
          ...(t.description !== '' ? { description: t.description } : {}),
          input_schema: t.parameters as Anthropic.Tool.InputSchema,
        }));
      let message: Anthropic.Message;
      let httpRequestId: string | null = null;
      try {
        const { data, response } = await client.messages
          .create(body, { signal, headers: { 'x-evalkit-sample-id': request.sampleId } })
          .withResponse();
        message = data;
        httpRequestId = response.headers.get('request-id');
      } catch (error) {
        throw fromSdkError(error);
      }
      if (!message || !Array.isArray(message.content)) throw emptyBody();
      const text = message.content
        .filter((block): block is Anthropic.TextBlock => block.type === 'text')
        .map((block) => block.text)
        .join('');
      // Several tool_use blocks in one reply are parallel calls, kept in the reply's order.
      const calls: ProviderToolCall[] = message.content
        .filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use')
        .map((block) => ({
          id: block.id,
          name: block.name,
          arguments: block.input === undefined ? '' : JSON.stringify(block.input),
        }));
      return {
        text,
        ...(calls.length > 0 ? { toolCalls: calls } : {}),
        finishReason: message.stop_reason ?? null,
        usage: message.usage ? usageOf(message.usage) : null,
        requestId: httpRequestId ?? message.id ?? null,
      };
    },
  };
}

/**
 * The Messages API's usage as evalkit counts it: its `input_tokens` leaves out the prompt tokens read from the
 * cache (`cache_read_input_tokens`) and written to it (`cache_creation_input_tokens`), so the prompt's tokens are
 * their sum, and the ones read from the cache are `cached_input_tokens` (a part of the input, priced apart), as
 * OpenAI counts them.
 */
function usageOf(usage: {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}): CompletionUsage {
  const read = usage.cache_read_input_tokens ?? 0;
  const written = usage.cache_creation_input_tokens ?? 0;
  return {
    input_tokens: typeof usage.input_tokens === 'number' ? usage.input_tokens + read + written : null,
    output_tokens: usage.output_tokens ?? null,
    ...(read > 0 ? { cached_input_tokens: read } : {}),
  };
}
