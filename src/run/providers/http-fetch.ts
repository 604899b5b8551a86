/**
 * A small `fetch` over node:http(s) with a keep-alive agent, handed to the SDKs. For the short JSON requests of an
 * evaluation it costs about half the CPU of the built-in fetch (no WHATWG streams on the hot path), which is what
 * bounds throughput against a fast local server. Only what the SDKs use is implemented: method, headers, a string
 * or bytes body, an AbortSignal; the response is a standard `Response` built from the whole body.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' });
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' });

function headersOf(init: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (init === undefined) return out;
  new Headers(init).forEach((value, key) => (out[key] = value));
  return out;
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason;
  if (reason instanceof Error) return reason;
  const error = new Error('This operation was aborted');
  error.name = 'AbortError';
  return error;
}

export const nodeHttpFetch: typeof fetch = (input, init = {}) =>
  new Promise<Response>((resolve, reject) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const signal = init.signal ?? undefined;
    if (signal?.aborted) return reject(abortError(signal));
    const secure = url.protocol === 'https:';
    const body = init.body;
    if (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) {
      // Streams, forms and blobs are not needed by a chat request; the platform fetch handles them.
      fetch(input, init).then(resolve, reject);
      return;
    }
    const headers = headersOf(init.headers);
    if (body != null) headers['content-length'] = String(Buffer.byteLength(body as string | Uint8Array));
    const req = (secure ? httpsRequest : httpRequest)(
      url,
      { method: init.method ?? 'GET', headers, agent: secure ? httpsAgent : httpAgent },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const responseHeaders = new Headers();
          for (let i = 0; i < res.rawHeaders.length; i += 2)
            responseHeaders.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
          const status = res.statusCode ?? 0;
          const nullBody = status === 204 || status === 205 || status === 304;
          resolve(
            new Response(nullBody ? null : Buffer.concat(chunks), {
              status,
              statusText: res.statusMessage,
              headers: responseHeaders,
            }),
          );
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
