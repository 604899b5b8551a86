/** Anthropic Messages API over the official SDK. */
import Anthropic from '@anthropic-ai/sdk';
import type { Completion, CompletionRequest, Provider } from './provider.js';
import { sdkClientOptions, type SdkClientSettings } from './sdk-client.js';
import { emptyBody, fromSdkError } from './sdk-errors.js';

export type AnthropicProviderOptions = SdkClientSettings;

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
          ? // Tool use is not sent through this provider yet (an agent task is refused before any call).
            request.messages.map((m) => ({
              role: m.role === 'assistant' ? 'assistant' : 'user',
              content: m.content,
            }))
          : [{ role: 'user', content: request.user }],
        temperature: request.temperature,
      };
      if (request.system !== null) body.system = request.system;
      if (request.topP !== undefined) body.top_p = request.topP;
      if (request.stop.length > 0) body.stop_sequences = request.stop;
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
      return {
        text,
        finishReason: message.stop_reason ?? null,
        usage: message.usage
          ? {
              input_tokens: message.usage.input_tokens ?? null,
              output_tokens: message.usage.output_tokens ?? null,
            }
          : null,
        requestId: httpRequestId ?? message.id ?? null,
      };
    },
  };
}
