/**
 * The viewer's HTTP server: a thin node:http layer over `answer` (the JSON API) and the app's three files.
 *
 * Load: requests are answered at the same time on a few read connections (pool.ts); the work of a client that goes
 * away is dropped or interrupted; answers are kept per state of the store (answer-cache.ts); long texts are cut with
 * a marker and fetched in pieces from `/api/text`, and no answer is larger than 16 MB (cap.ts).
 *
 * Security: only GET and HEAD; a strict Content-Security-Policy (scripts and styles only from the server itself,
 * no inline code, no plugins, no framing); the Host header must name this server (a page on another site cannot
 * reach it through DNS rebinding; see `allowedHostHeaders`). On a host other than loopback a token is required on every request: the URL
 * printed carries it once as `?token=`, the server answers with an HttpOnly, SameSite=Strict cookie that the
 * page's later requests carry; `Authorization: Bearer <token>` works as well.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { allowedHostHeaders, isLoopback } from '../io/net/hosts.js';
export { isLoopback };
import { EvalkitError, UsageError } from '../errors.js';
import type { Store } from '../store/db.js';
import { answer, isEndpoint } from './api.js';
import { appAssets, indexHtml } from './assets.js';
import { prepareSearch } from './data.js';
import { checkToken } from './token.js';
import { createAnswerCache } from './answer-cache.js';
import { boundedJson, capTexts } from './cap.js';
import { openReadPool, RequestAbandoned, ServerBusy } from './pool.js';
import { canonicalQuery, type Params } from './shared/query.js';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface ViewServerOptions {
  store: Store;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Required on every request when set; generated when the host is not loopback and none is given. */
  token?: string;
  /** Read connections answering at the same time (default: 2 to 4, by the machine's CPUs). */
  connections?: number;
}

const DEFAULT_CONNECTIONS = Math.min(4, Math.max(2, availableParallelism()));

export interface ViewServer {
  /** The URL to open (with `?token=` when a token is required). */
  url: string;
  token: string | undefined;
  port: number;
  close(): Promise<void>;
}

const COOKIE = 'evalkit_token';

function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token cookie's value; a value that is not valid percent-encoding is no token (never an error). */
function cookieToken(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name !== COOKIE) continue;
    try {
      return decodeURIComponent(value.join('='));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  extra: Record<string, string> = {},
  head = false,
): void {
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Cache-Control': 'no-store',
    ...extra,
  });
  res.end(head ? undefined : body);
}

function errorStatus(error: unknown): number {
  if (error instanceof ServerBusy) return 503;
  if (error instanceof UsageError) {
    if (error.code === 'view.too-large') return 413;
    return /unknown/.test(error.code) ? 404 : 400;
  }
  return 500;
}

export async function startViewServer(options: ViewServerOptions): Promise<ViewServer> {
  const host = options.host ?? '127.0.0.1';
  if (options.token !== undefined) checkToken(options.token);
  const token = options.token ?? (isLoopback(host) ? undefined : randomBytes(24).toString('base64url'));
  const assets = await appAssets();
  const html = indexHtml('server');
  // A few read connections answer at the same time; answers are kept per state of the store.
  const pool = await openReadPool(options.store, { size: options.connections ?? DEFAULT_CONNECTIONS });
  const cache = createAnswerCache(options.store.path);

  let allowedHosts = new Set<string>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const head = req.method === 'HEAD';
    if (req.method !== 'GET' && !head) {
      send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n', { Allow: 'GET, HEAD' });
      return;
    }
    if (!allowedHosts.has((req.headers.host ?? '').toLowerCase())) {
      send(res, 421, 'text/plain; charset=utf-8', 'this server does not answer for that host name\n');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://view.invalid');
    const extra: Record<string, string> = {};
    if (token !== undefined) {
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const fromQuery = url.searchParams.get('token') ?? undefined;
      if (![cookieToken(req), bearer, fromQuery].some((t) => sameToken(t, token))) {
        send(
          res,
          401,
          'text/plain; charset=utf-8',
          'a token is required: open the URL evalkit view printed\n',
        );
        return;
      }
      if (sameToken(fromQuery, token)) {
        extra['Set-Cookie'] = `${COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`;
      }
    }
    const path = url.pathname;
    if (path === '/' || path === '/index.html') {
      send(res, 200, 'text/html; charset=utf-8', html, extra, head);
    } else if (path === '/app.js') {
      send(res, 200, 'text/javascript; charset=utf-8', assets.js, extra, head);
    } else if (path === '/app.css') {
      send(res, 200, 'text/css; charset=utf-8', assets.css, extra, head);
    } else if (path.startsWith('/api/')) {
      const endpoint = path.slice('/api/'.length);
      if (!isEndpoint(endpoint)) {
        send(
          res,
          404,
          'application/json',
          JSON.stringify({ error: { code: 'view.not-found', message: path } }),
        );
        return;
      }
      const params: Params = {};
      for (const [k, v] of url.searchParams) if (k !== 'token') params[k] = v;
      // Work for a client that goes away before its answer is sent is dropped (waiting) or interrupted (running).
      const abandoned = new AbortController();
      res.on('close', () => {
        if (!res.writableEnded) abandoned.abort();
      });
      const affinity = endpoint === 'samples' ? `${params.record}\u0000${params.result}` : undefined;
      try {
        const key = `${endpoint}?${canonicalQuery(params)}@${cache.state()}`;
        let body = cache.get(key);
        if (!body) {
          body = await cache.once(key, abandoned.signal, (signal) =>
            pool.run(
              async (store) => boundedJson(capTexts(endpoint, params, await answer(store, endpoint, params))),
              { signal, affinity },
            ),
          );
          cache.set(key, body);
        }
        send(res, 200, 'application/json; charset=utf-8', body, extra, head);
        // The reader may search next: lower-case this result's texts now, not when they type.
        if (endpoint === 'samples') void pool.runIdle((store) => prepareSearch(store, params), { affinity });
      } catch (error) {
        if (error instanceof RequestAbandoned) return;
        const code = error instanceof EvalkitError ? error.code : 'view.internal';
        const message = error instanceof Error ? error.message : String(error);
        send(
          res,
          errorStatus(error),
          'application/json; charset=utf-8',
          JSON.stringify({ error: { code, message } }),
          error instanceof ServerBusy ? { 'Retry-After': '1' } : {},
        );
      }
    } else {
      send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', `${(error as Error).message}\n`);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new UsageError(
          'view.listen',
          `cannot listen on ${host}:${options.port ?? 0}: ${error.code === 'EADDRINUSE' ? 'the port is in use' : error.message}`,
        ),
      ),
    );
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  allowedHosts = allowedHostHeaders(host, port);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${shownHost}:${port}/${token !== undefined ? `?token=${encodeURIComponent(token)}` : ''}`;
  return {
    url,
    token,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          void pool.close().then(resolve);
        });
      }),
  };
}
