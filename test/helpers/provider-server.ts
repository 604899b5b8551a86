// A real local HTTP server that speaks the OpenAI chat-completions and Anthropic Messages protocols.
// It answers from a script and misbehaves on demand (429 with Retry-After, 5xx, 529, slow answers, dropped
// connections, empty bodies, malformed JSON), so the real SDKs can be driven through --base-url.
// Run it standalone (for the bench or by hand): `node --import tsx test/helpers/provider-server.ts [--latency MS]`;
// it prints `listening <port>`.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export type Protocol = 'openai' | 'anthropic';

export interface ScriptContext {
  protocol: Protocol;
  /** The x-evalkit-sample-id header (`run:item:sample-k`), or '' when absent. */
  sampleId: string;
  /** How many times this sample id has been asked for, this one included. */
  attempt: number;
  system: string | null;
  user: string;
  body: any;
  /** The Authorization (OpenAI) or x-api-key (Anthropic) header as sent. */
  authorization: string | null;
}

export type Behaviour =
  | {
      text: string;
      finishReason?: string;
      delayMs?: number;
      usage?: { input: number; output: number; cached?: number };
      /** Sent as the OpenAI `usage` object verbatim (to send nonsense counts). */
      rawUsage?: unknown;
    }
  | {
      /**
       * A reply that calls tools (several: parallel calls). OpenAI: `tool_calls` with `arguments` sent verbatim;
       * Anthropic: `tool_use` content blocks (stop_reason `tool_use`) whose `input` is `input` when given, else the
       * arguments parsed (the Messages API sends JSON, never text).
       */
      toolCalls: { id?: string; name: string; arguments: string; input?: unknown }[];
      text?: string;
      /** Instead of `tool_calls` / `tool_use` (a reply cut at max_tokens mid-call). */
      finishReason?: string;
      delayMs?: number;
      usage?: { input: number; output: number; cached?: number };
    }
  | { endless: true; delayMs?: number }
  | { status: number; retryAfter?: string; retryAfterMs?: number; message?: string; delayMs?: number }
  | { drop: true; delayMs?: number }
  | { empty: true; delayMs?: number }
  | { malformed: true; delayMs?: number };

export type Script = (ctx: ScriptContext) => Behaviour;

export interface LoggedRequest {
  protocol: Protocol;
  sampleId: string;
  attempt: number;
  at: number;
  authorization: string | null;
  /** Every request header (lower-case names). */
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

const VERDICT_TEXTS = [
  'GOOD',
  'BAD',
  'ABSTAIN',
  'BAD\n\nThe premises leave room for doubt.\n\nVerdict: GOOD',
  'Verdict: **BAD**',
  'I cannot tell from this.',
];

/** The default script: a verdict text chosen by a hash of the item and sample index (stable across runs). */
export const hashedVerdicts: Script = (ctx) => {
  const key = ctx.sampleId.split(':').slice(-2).join(':') + '\0' + ctx.user;
  const h = createHash('sha256').update(key).digest().readUInt32BE(0);
  if (/coherent\?/i.test(ctx.user)) return { text: ['COHERENT', 'INCOHERENT', 'UNCLEAR'][h % 3] };
  return { text: VERDICT_TEXTS[h % VERDICT_TEXTS.length] };
};

export interface ProviderServer {
  url: string;
  /** Base URL for the openai SDK (…/v1). */
  openaiBaseUrl: string;
  /** Base URL for the Anthropic SDK (it adds /v1/messages itself). */
  anthropicBaseUrl: string;
  requests: LoggedRequest[];
  setScript(script: Script): void;
  setLatency(ms: number): void;
  /** Keep every request that arrives from now on waiting (after it is logged) until `release()`. */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((c: any) => (typeof c?.text === 'string' ? c.text : '')).join('');
  return '';
}

/** The Messages API's error type for an HTTP status (its error body is `{type: "error", error: {type, message}}`). */
function anthropicErrorType(status: number): string {
  const types: Record<number, string> = {
    400: 'invalid_request_error',
    401: 'authentication_error',
    403: 'permission_error',
    404: 'not_found_error',
    413: 'request_too_large',
    429: 'rate_limit_error',
    529: 'overloaded_error',
  };
  return types[status] ?? 'api_error';
}

/** The CLI options that point a run at the server: `--provider openai --model m --base-url <server>`. */
export const providerArgs = (server: ProviderServer): string[] => [
  '--provider',
  'openai',
  '--model',
  'm',
  '--base-url',
  server.openaiBaseUrl,
];

/** The start of a CLI run against the server: `evaluate BENCHMARK` and providerArgs. */
export const evaluateAgainst = (server: ProviderServer, benchmark: string): string[] => [
  'evaluate',
  benchmark,
  ...providerArgs(server),
];

export async function startProviderServer(
  options: { script?: Script; latencyMs?: number; log?: boolean; port?: number } = {},
): Promise<ProviderServer> {
  let script = options.script ?? hashedVerdicts;
  let latency = options.latencyMs ?? 0;
  let held: { gate: Promise<void>; open: () => void } | undefined;
  const requests: LoggedRequest[] = [];
  const attempts = new Map<string, number>();
  let counter = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readBody(req);
    const path = (req.url ?? '').split('?')[0];
    const protocol: Protocol | undefined = path.endsWith('/chat/completions')
      ? 'openai'
      : path.endsWith('/messages')
        ? 'anthropic'
        : undefined;
    if (req.method !== 'POST' || protocol === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"bad json"}}');
      return;
    }
    const sampleId = String(req.headers['x-evalkit-sample-id'] ?? '');
    const attempt = (attempts.get(sampleId) ?? 0) + 1;
    attempts.set(sampleId, attempt);
    const authorization = (req.headers['authorization'] ?? req.headers['x-api-key'] ?? null) as string | null;
    if (options.log !== false)
      requests.push({
        protocol,
        sampleId,
        attempt,
        at: Date.now(),
        authorization,
        headers: { ...req.headers },
        body,
      });
    let system: string | null = null;
    let user = '';
    if (protocol === 'openai') {
      for (const m of body.messages ?? []) {
        if (m.role === 'system') system = contentText(m.content);
        if (m.role === 'user') user = contentText(m.content);
      }
    } else {
      system = body.system === undefined ? null : contentText(body.system);
      user = contentText(body.messages?.[0]?.content);
    }
    if (held) await held.gate;
    const behaviour = script({ protocol, sampleId, attempt, system, user, body, authorization });
    const delay = (behaviour.delayMs ?? 0) + latency;
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    if (res.destroyed) return;
    const id = `req_${++counter}`;

    if ('drop' in behaviour) {
      req.socket.destroy();
      return;
    }
    if ('endless' in behaviour) {
      // A chunked body that never ends: 64 KiB at a time for as long as the client reads.
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      res.write('{"id": "endless", "choices": [');
      pump();
      return;
    }
    if ('empty' in behaviour) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '0' }).end();
      return;
    }
    if ('malformed' in behaviour) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"id": "x", "choices": [{"message": ');
      return;
    }
    if ('status' in behaviour) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (behaviour.retryAfter !== undefined) headers['retry-after'] = behaviour.retryAfter;
      if (behaviour.retryAfterMs !== undefined) headers['retry-after-ms'] = String(behaviour.retryAfterMs);
      const message = behaviour.message ?? `scripted ${behaviour.status}`;
      const payload =
        protocol === 'anthropic'
          ? { type: 'error', error: { type: anthropicErrorType(behaviour.status), message } }
          : { error: { message, type: 'scripted', code: behaviour.status } };
      res.writeHead(behaviour.status, headers).end(JSON.stringify(payload));
      return;
    }
    // A reply that calls tools: its text may be absent, its input the whole conversation.
    const calls = 'toolCalls' in behaviour ? behaviour.toolCalls : undefined;
    const text = 'toolCalls' in behaviour ? (behaviour.text ?? null) : behaviour.text;
    const prompt = calls ? JSON.stringify(body.messages ?? []).length : user.length + (system?.length ?? 0);
    const input = behaviour.usage?.input ?? Math.ceil(prompt / 4);
    const output = behaviour.usage?.output ?? Math.max(1, Math.ceil((text ?? '').length / 4));
    const finishReason = 'finishReason' in behaviour ? behaviour.finishReason : undefined;
    if (protocol === 'openai') {
      const payload = {
        id: `chatcmpl-${id}`,
        object: 'chat.completion',
        created: 1_700_000_000,
        model: body.model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: text,
              ...(calls
                ? {
                    tool_calls: calls.map((c, i) => ({
                      id: c.id ?? `call_${id}_${i}`,
                      type: 'function',
                      function: { name: c.name, arguments: c.arguments },
                    })),
                  }
                : {}),
            },
            finish_reason: finishReason ?? (calls ? 'tool_calls' : 'stop'),
          },
        ],
        usage:
          'rawUsage' in behaviour && behaviour.rawUsage !== undefined
            ? behaviour.rawUsage
            : {
                prompt_tokens: input,
                completion_tokens: output,
                total_tokens: input + output,
                // OpenAI's count of the prompt tokens served from its cache (a part of prompt_tokens).
                ...(behaviour.usage?.cached !== undefined
                  ? { prompt_tokens_details: { cached_tokens: behaviour.usage.cached } }
                  : {}),
              },
      };
      res
        .writeHead(200, { 'content-type': 'application/json', 'x-request-id': id })
        .end(JSON.stringify(payload));
    } else {
      const payload = {
        id: `msg_${id}`,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: [
          ...(text !== null && (text !== '' || !calls) ? [{ type: 'text', text }] : []),
          ...(calls ?? []).map((c, i) => ({
            type: 'tool_use',
            id: c.id ?? `toolu_${id}_${i}`,
            name: c.name,
            input: 'input' in c ? c.input : JSON.parse(c.arguments),
          })),
        ],
        stop_reason: finishReason ?? (calls ? 'tool_use' : 'end_turn'),
        stop_sequence: null,
        // The Messages API's input_tokens leave out the prompt tokens read from its cache (counted apart).
        usage: {
          input_tokens: input - (behaviour.usage?.cached ?? 0),
          output_tokens: output,
          ...(behaviour.usage?.cached !== undefined
            ? { cache_read_input_tokens: behaviour.usage.cached }
            : {}),
        },
      };
      res
        .writeHead(200, { 'content-type': 'application/json', 'request-id': id })
        .end(JSON.stringify(payload));
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    requests,
    setScript: (s) => (script = s),
    setLatency: (ms) => (latency = ms),
    hold: () => {
      if (held) return;
      let open = (): void => {};
      const gate = new Promise<void>((resolve) => (open = resolve));
      held = { gate, open };
    },
    release: () => {
      held?.open();
      held = undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        held?.open();
        held = undefined;
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * An agent that takes `turns` model turns: it calls the calculator on each turn until the conversation holds
 * `turns - 1` tool results, then answers GOOD (the bench's agent, `--agent-turns N` standalone).
 */
export const agentTurns =
  (turns: number): Script =>
  (ctx) => {
    const results = (ctx.body?.messages ?? []).filter((m: any) => m.role === 'tool').length;
    if (results >= turns - 1) return { text: 'GOOD' };
    return {
      toolCalls: [{ id: `c${results}`, name: 'calculator', arguments: `{"expression": "${results} + 1"}` }],
    };
  };

// Standalone: `node --import tsx test/helpers/provider-server.ts --latency 50 --port 0 [--agent-turns N]`.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const arg = (name: string): string | undefined => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const turns = arg('--agent-turns');
  const server = await startProviderServer({
    latencyMs: Number(arg('--latency') ?? 0),
    port: Number(arg('--port') ?? 0),
    log: false,
    ...(turns !== undefined ? { script: agentTurns(Number(turns)) } : {}),
  });
  process.stdout.write(`listening ${new URL(server.url).port}\n`);
  process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
  // Started with a piped stdin (as the bench does), it stops when its parent goes away.
  if (!process.stdin.isTTY)
    process.stdin.on('end', () => void server.close().then(() => process.exit(0))).resume();
}
