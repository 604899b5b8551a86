/**
 * A small `fetch` over node:http(s) with a keep-alive agent, handed to the SDKs. For the short JSON requests of an
 * evaluation it costs about half the CPU of the built-in fetch (no WHATWG streams on the hot path), which is what
 * bounds throughput against a fast local server. Only what the SDKs use is implemented: method, headers, a string
 * or bytes body, an AbortSignal; the response is read whole and offered through the `Response` members the SDKs use.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { ProviderError } from './call-error.js';

/** The largest response body read by default: a chat completion is kilobytes; anything near this is a fault. */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

function tooLarge(limit: number, what: string): ProviderError {
  return new ProviderError(
    'response-too-large',
    `the response body ${what} the limit of ${limit} bytes; the rest was not read`,
    { transient: false },
  );
}

const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' });
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' });

function headersOf(init: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (init === undefined) return out;
  // The SDKs hand over a Headers object: read it as it is instead of copying (and re-validating) it.
  const headers = init instanceof Headers ? init : new Headers(init);
  headers.forEach((value, key) => (out[key] = value));
  return out;
}

/**
 * The response headers, read-only, from node's raw header list: the part of `Headers` the SDKs read (get, has,
 * iteration), without validating and copying every header into a WHATWG Headers object per response.
 */
class ResponseHeaders {
  readonly #map = new Map<string, string>();
  constructor(raw: string[]) {
    for (let i = 0; i < raw.length; i += 2) {
      const key = raw[i].toLowerCase();
      const prior = this.#map.get(key);
      this.#map.set(key, prior === undefined ? raw[i + 1] : `${prior}, ${raw[i + 1]}`);
    }
  }
  get(name: string): string | null {
    return this.#map.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.#map.has(name.toLowerCase());
  }
  forEach(callback: (value: string, key: string, parent: ResponseHeaders) => void): void {
    for (const [key, value] of this.#map) callback(value, key, this);
  }
  entries(): IterableIterator<[string, string]> {
    return this.#map.entries();
  }
  keys(): IterableIterator<string> {
    return this.#map.keys();
  }
  values(): IterableIterator<string> {
    return this.#map.values();
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.#map.entries();
  }
}

/**
 * A response whose body is already in memory. It offers what the SDKs read from a `Response` (status, ok, url,
 * headers, json(), text(), arrayBuffer(), clone(), and `body` as a stream on demand) without building a WHATWG
 * Response and stream per request, which was a large part of the per-request CPU against a fast server.
 */
class BufferedResponse {
  readonly ok: boolean;
  readonly redirected = false;
  readonly type = 'basic';
  #used = false;
  #stream: ReadableStream<Uint8Array> | null | undefined;
  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly headers: ResponseHeaders,
    readonly url: string,
    readonly bytes: Buffer | null,
  ) {
    this.ok = status >= 200 && status < 300;
  }
  get bodyUsed(): boolean {
    return this.#used;
  }
  get body(): ReadableStream<Uint8Array> | null {
    if (this.#stream === undefined)
      this.#stream = this.bytes === null ? null : new Response(this.bytes as Uint8Array<ArrayBuffer>).body;
    return this.#stream;
  }
  #take(): Buffer {
    // Looking at `body` (the Anthropic SDK checks `body.locked`) does not consume it; reading the stream does.
    if (this.#used || this.#stream?.locked)
      throw new TypeError('Body is unusable: Body has already been read');
    this.#used = true;
    return this.bytes ?? Buffer.alloc(0);
  }
  async text(): Promise<string> {
    return this.#take().toString('utf8');
  }
  async json(): Promise<unknown> {
    return JSON.parse(this.#take().toString('utf8'));
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = this.#take();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }
  async blob(): Promise<Blob> {
    return new Blob([this.#take() as Uint8Array<ArrayBuffer>]);
  }
  clone(): BufferedResponse {
    if (this.#used) throw new TypeError('Response.clone: Body has already been consumed.');
    return new BufferedResponse(this.status, this.statusText, this.headers, this.url, this.bytes);
  }
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason;
  if (reason instanceof Error) return reason;
  const error = new Error('This operation was aborted');
  error.name = 'AbortError';
  return error;
}

interface Target {
  href: string;
  secure: boolean;
  options: ReturnType<typeof urlToHttpOptions>;
}

// An evaluation posts to one or two URLs many thousand times: parse each once.
const targets = new Map<string, Target>();
function targetOf(href: string): Target {
  let target = targets.get(href);
  if (target === undefined) {
    const url = new URL(href);
    if (targets.size >= 64) targets.clear();
    target = { href: url.href, secure: url.protocol === 'https:', options: urlToHttpOptions(url) };
    targets.set(href, target);
  }
  return target;
}

/**
 * A fetch that reads at most `maxResponseBytes` of a body: a longer (or endless) body is cut off, the connection
 * closed, and the call fails with a ProviderError of kind `response-too-large` (the SDKs keep it as the cause).
 */
export function createNodeHttpFetch(options: { maxResponseBytes?: number } = {}): typeof fetch {
  const limit = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  return (input, init = {}) => nodeHttpRequest(input, init, limit);
}

export const nodeHttpFetch: typeof fetch = createNodeHttpFetch();

const nodeHttpRequest = (
  input: Parameters<typeof fetch>[0],
  init: RequestInit,
  limit: number,
): Promise<Response> =>
  new Promise<Response>((resolve, reject) => {
    const target = targetOf(
      typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
    );
    const signal = init.signal ?? undefined;
    if (signal?.aborted) return reject(abortError(signal));
    const secure = target.secure;
    const body = init.body;
    if (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) {
      // Streams, forms and blobs are not needed by a chat request; the platform fetch handles them.
      fetch(input, init).then(resolve, reject);
      return;
    }
    const headers = headersOf(init.headers);
    if (body != null) headers['content-length'] = String(Buffer.byteLength(body as string | Uint8Array));
    const req = (secure ? httpsRequest : httpRequest)(
      { ...target.options, method: init.method ?? 'GET', headers, agent: secure ? httpsAgent : httpAgent },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let received = 0;
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > limit) {
          reject(tooLarge(limit, `(${declared} bytes announced) exceeds`));
          req.destroy();
          return;
        }
        res.on('data', (c: Buffer) => {
          received += c.length;
          if (received > limit) {
            reject(tooLarge(limit, 'exceeded'));
            chunks.length = 0;
            req.destroy();
            return;
          }
          chunks.push(c);
        });
        res.on('error', reject);
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const nullBody = status === 204 || status === 205 || status === 304;
          const bytes = nullBody ? null : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
          const response = new BufferedResponse(
            status,
            res.statusMessage ?? '',
            new ResponseHeaders(res.rawHeaders),
            target.href,
            bytes,
          );
          resolve(response as unknown as Response);
        });
        res.on('aborted', () =>
          reject(new TypeError('fetch failed: the connection was closed mid-response')),
        );
      },
    );
    const onAbort = (): void => {
      req.destroy(abortError(signal!));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('close', () => signal?.removeEventListener('abort', onAbort));
    req.on('error', (e) =>
      reject(
        signal?.aborted ? abortError(signal) : Object.assign(new TypeError('fetch failed'), { cause: e }),
      ),
    );
    if (body != null) req.end(body);
    else req.end();
  });
