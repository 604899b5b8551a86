/**
 * Recording and replaying provider calls. A fixture is JSONL, one line per call:
 * `{"key": sha256 of the request, "request": {...}, "response": {"text", "finish_reason", "usage"}}`.
 * The key covers what decides the answer (model, prompts, decoding params, sample index), not the run id,
 * so a recorded run replays under any run id and any provider name.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { createRegularReadStream } from '../../io/regular-file.js';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { DataError, IoError } from '../../errors.js';
import { canonicalJson } from '../../io/canonical.js';
import {
  ProviderError,
  type Completion,
  type CompletionRequest,
  type Provider,
  type ProviderMessage,
} from './provider.js';

export function replayRequest(request: CompletionRequest): Record<string, unknown> {
  return {
    model: request.model,
    system: request.system,
    user: request.user,
    // Only a conversation of more than one message adds its turns, so recordings of single prompts keep their keys.
    // A tool result's is_error is left out of the key, so recordings made before it existed keep their keys; an
    // error result says so in its content (`error: …`), which the key covers.
    ...(request.messages ? { messages: request.messages.map(withoutErrorFlag) } : {}),
    // Only an agent task's requests carry tools, so other recordings keep their keys.
    ...(request.tools ? { tools: request.tools } : {}),
    temperature: request.temperature,
    max_tokens: request.maxTokens,
    top_p: request.topP ?? null,
    seed: request.seed ?? null,
    stop: request.stop,
    sample_index: request.sampleIndex,
  };
}

function withoutErrorFlag(m: ProviderMessage): ProviderMessage {
  if (m.role !== 'tool' || m.is_error === undefined) return m;
  const { is_error: _, ...rest } = m;
  return rest;
}

export function replayKey(request: CompletionRequest): string {
  return createHash('sha256')
    .update(canonicalJson(replayRequest(request)))
    .digest('hex');
}

interface FixtureLine {
  key: string;
  response: {
    text: string;
    tool_calls?: Completion['toolCalls'];
    finish_reason?: string | null;
    usage?: Completion['usage'];
    request_id?: string | null;
  };
}

export async function loadFixture(path: string): Promise<Map<string, FixtureLine['response']>> {
  const map = new Map<string, FixtureLine['response']>();
  const stream = createRegularReadStream(path, { encoding: 'utf8' });
  const failed = new Promise<never>((_, reject) =>
    stream.on('error', (e) =>
      reject(e instanceof IoError ? e : new IoError('io.read', `cannot read fixture ${path}: ${e.message}`)),
    ),
  );
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let lineNo = 0;
  const read = (async () => {
    for await (const line of lines) {
      lineNo++;
      if (line.trim() === '') continue;
      let parsed: FixtureLine;
      try {
        parsed = JSON.parse(line);
      } catch (e) {
        throw new DataError('run.fixture-json', `${path}:${lineNo}:1 invalid JSON: ${(e as Error).message}`);
      }
      if (typeof parsed?.key !== 'string' || typeof parsed?.response?.text !== 'string') {
        throw new DataError(
          'run.fixture-shape',
          `${path}:${lineNo}:1 a fixture line needs "key" and "response.text"`,
        );
      }
      map.set(parsed.key, parsed.response);
    }
  })();
  await Promise.race([read, failed]);
  return map;
}

export async function createReplayProvider(path: string): Promise<Provider> {
  const fixture = await loadFixture(path);
  return {
    name: 'replay',
    async complete(request: CompletionRequest): Promise<Completion> {
      const hit = fixture.get(replayKey(request));
      if (hit === undefined) {
        throw new ProviderError('replay-miss', `no recorded response for this request in ${path}`, {
          transient: false,
        });
      }
      return {
        text: hit.text,
        ...(hit.tool_calls !== undefined && hit.tool_calls.length > 0 ? { toolCalls: hit.tool_calls } : {}),
        finishReason: hit.finish_reason ?? null,
        usage: hit.usage ?? null,
        requestId: hit.request_id ?? null,
      };
    },
  };
}

/** Wraps a provider so each successful call is appended to a fixture file. Call `close()` at the end. */
export async function recordingProvider(
  inner: Provider,
  path: string,
): Promise<Provider & { close(): Promise<void> }> {
  await mkdir(dirname(path), { recursive: true });
  const out: WriteStream = createWriteStream(path, { flags: 'a' });
  return {
    name: inner.name,
    async complete(request, signal) {
      const completion = await inner.complete(request, signal);
      const line: FixtureLine & { request: unknown } = {
        key: replayKey(request),
        request: replayRequest(request),
        response: {
          text: completion.text,
          ...(completion.toolCalls !== undefined ? { tool_calls: completion.toolCalls } : {}),
          finish_reason: completion.finishReason,
          usage: completion.usage,
          request_id: completion.requestId,
        },
      };
      out.write(`${JSON.stringify(line)}\n`);
      return completion;
    },
    close: () => new Promise<void>((resolve) => out.end(resolve)),
  };
}
