/** OpenAI chat completions over the official SDK; any OpenAI-compatible server through baseURL. */
import OpenAI from 'openai';
import type { Completion, CompletionRequest, Provider } from './provider.js';
import { sdkClientOptions, type SdkClientSettings } from './sdk-client.js';
import { emptyBody, fromSdkError } from './sdk-errors.js';

export interface OpenAIProviderOptions extends SdkClientSettings {
  /** Sent with every request (OpenRouter's HTTP-Referer / X-Title attribution). */
  headers?: Record<string, string>;
  /** The provider name the η records (`openrouter` for the preset). */
  name?: string;
}

/** Model families that reject `max_tokens` and take `max_completion_tokens` (reasoning models). */
export function usesMaxCompletionTokens(model: string): boolean {
  const name = model.toLowerCase().split('/').pop() ?? '';
  return /^(o\d|gpt-5|codex)/.test(name);
}

export function createOpenAIProvider(options: OpenAIProviderOptions): Provider {
  const client = new OpenAI(sdkClientOptions(options));
  return {
    name: options.name ?? 'openai',
    async complete(request: CompletionRequest, signal: AbortSignal): Promise<Completion> {
      const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [];
      if (request.system !== null) messages.push({ role: 'system', content: request.system });
      if (request.messages)
        for (const m of request.messages) {
          if (m.role === 'tool')
            messages.push({ role: 'tool', content: m.content, tool_call_id: m.tool_call_id });
          else if (m.role === 'assistant' && m.tool_calls !== undefined && m.tool_calls.length > 0)
            messages.push({
              role: 'assistant',
              content: m.content === '' ? null : m.content,
              tool_calls: m.tool_calls.map((c) => ({
                id: c.id,
                type: 'function',
                function: { name: c.name, arguments: c.arguments },
              })),
            });
          else messages.push({ role: m.role, content: m.content });
        }
      else messages.push({ role: 'user', content: request.user });
      const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
        model: request.model,
        messages,
        temperature: request.temperature,
      };
      if (usesMaxCompletionTokens(request.model)) body.max_completion_tokens = request.maxTokens;
      else body.max_tokens = request.maxTokens;
      if (request.topP !== undefined) body.top_p = request.topP;
      if (request.seed !== undefined) body.seed = request.seed;
      if (request.stop.length > 0) body.stop = request.stop;
      if (request.tools !== undefined && request.tools.length > 0)
        body.tools = request.tools.map((t) => ({
          type: 'function',
          function: { name: t.name, description: t.description, parameters: t.parameters },
        }));
      let response: OpenAI.Chat.ChatCompletion;
      let httpRequestId: string | null = null;
      try {
        const { data, response: raw } = await client.chat.completions
          .create(body, { signal, headers: { ...options.headers, 'x-evalkit-sample-id': request.sampleId } })
          .withResponse();
        response = data;
        httpRequestId = raw.headers.get('x-request-id');
      } catch (error) {
        throw fromSdkError(error);
      }
      const choice = response?.choices?.[0];
      const calls = (choice?.message?.tool_calls ?? []).flatMap((c) =>
        c.type === 'function'
          ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments ?? '' }]
          : [],
      );
      // A turn that calls tools may have no text.
      const text = choice?.message?.content ?? (calls.length > 0 ? '' : undefined);
      if (!choice || typeof text !== 'string') throw emptyBody();
      const usage = response.usage;
      return {
        text,
        ...(calls.length > 0 ? { toolCalls: calls } : {}),
        finishReason: choice.finish_reason ?? null,
        usage: usage
          ? {
              input_tokens: usage.prompt_tokens ?? null,
              output_tokens: usage.completion_tokens ?? null,
              reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? null,
              ...(typeof usage.prompt_tokens_details?.cached_tokens === 'number'
                ? { cached_input_tokens: usage.prompt_tokens_details.cached_tokens }
                : {}),
            }
          : null,
        requestId: httpRequestId ?? response.id ?? null,
      };
    },
  };
}
