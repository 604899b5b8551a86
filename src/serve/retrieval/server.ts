/**
 * `evalkit retrieval serve`: the online retrieval loop over one store. A retrieval system POSTs its events; each is
 * checked against the 0.1 schema and stored (committed) before the answer; gates run on a rolling window at an
 * interval and a policy turns failures into feedback actions with a TTL, which the system polls.
 *
 * Endpoints: POST /v1/events, GET /v1/metrics, GET /v1/actions, DELETE /v1/actions/{id}, GET /healthz.
 * Writes always need `Authorization: Bearer TOKEN`; reads need it too when the host is not loopback.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../../errors.js';
import type { ThresholdConfig } from '../../metrics/retrieval/thresholds.js';
import type { Store } from '../../store/db.js';
import { eventProblem, DEFAULT_MAX_FUTURE_SKEW_MS } from '../../store/retrieval/events.js';
import { ensureRetrievalTables } from '../../store/retrieval/ingest.js';
import { CommitQueue } from './commit-queue.js';
import { EventSink } from './event-sink.js';
import { activeActions, gateTick, revocationOf, tickEvents, type Policy } from './loop.js';
import { DEFAULT_GROUP_BY, parseGroupBy, windowFigures, type GroupField } from './window.js';
import type { JsonObject } from '../../io/json-value.js';

export interface RetrievalServeOptions {
  store: Store;
  host?: string;
  port?: number;
  /** Required for every write (generated when absent) and for reads off loopback. */
  token?: string;
  thresholds?: ThresholdConfig;
  policy?: Policy;
  /** How often the gates run (ms); default 10 s. */
  gateIntervalMs?: number;
  /** The gates' rolling window (ms); default 5 minutes. */
  windowMs?: number;
  /** The groups gates are evaluated for; default layer, tool_id, model_id. */
  gateBy?: GroupField[];
  /** Largest request body (bytes); default 4 MiB. */
  maxBodyBytes?: number;
  /** How far in the future an event's ts may be (ms); default 5 minutes. */
  maxFutureSkewMs?: number;
  /** The clock (tests move it). */
  now?: () => number;
}

export interface RetrievalServer {
  url: string;
  port: number;
  token: string;
  /** Runs the gates once now (also run on the interval). */
  runGates(): Promise<{ results: number; actions: number }>;
  /** Stops taking connections, finishes requests in flight and pending commits. The store stays open. */
  close(): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
export const DEFAULT_WINDOW_MS = 5 * 60_000;
export const DEFAULT_GATE_INTERVAL_MS = 10_000;

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      reject(new HttpError(413, 'http.body-too-large', `the body is larger than ${limit} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new HttpError(413, 'http.body-too-large', `the body is larger than ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export interface ParsedLine {
  line: number;
  value?: unknown;
  problem?: { code: string; message: string };
}

/** An NDJSON body (one event a line, blank lines skipped) or a JSON array of events; numbered from 1. */
export function parseEventsBody(body: Buffer): ParsedLine[] {
  const text = body.toString('utf8');
  if (text.includes('\uFFFD') && !Buffer.from(text, 'utf8').equals(body))
    return [{ line: 0, problem: { code: 'json.bad-utf8', message: 'the body is not valid UTF-8' } }];
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    try {
      const array = JSON.parse(text) as unknown[];
      return array.map((value, i) => ({ line: i + 1, value }));
    } catch (error) {
      return [{ line: 1, problem: { code: 'json.parse', message: (error as Error).message } }];
    }
  }
  const out: ParsedLine[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].replace(/\r$/, '');
    if (raw.trim() === '') continue;
    try {
      out.push({ line: i + 1, value: JSON.parse(raw) });
    } catch (error) {
      out.push({ line: i + 1, problem: { code: 'json.parse', message: (error as Error).message } });
    }
  }
  return out;
}

function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function startRetrievalServer(options: RetrievalServeOptions): Promise<RetrievalServer> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? randomBytes(24).toString('base64url');
  if (token.trim().length < 8)
    throw new UsageError('usage.bad-option', 'the token must be at least 8 characters');
  const loopback = isLoopbackHost(host);
  const now = options.now ?? Date.now;
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
  const store = options.store;
  await ensureRetrievalTables(store);
  const sink = await EventSink.open(store);
  const queue = new CommitQueue((events) => sink.write(events, now()));

  const authorised = (req: IncomingMessage): boolean => {
    const header = req.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    return sameToken(match?.[1], token);
  };

  const postEvents = async (req: IncomingMessage): Promise<JsonObject> => {
    const body = await readBody(req, limit);
    const at = now();
    const accepted: { event: JsonObject; origin: 'serve' }[] = [];
    const rejected: { line: number; code: string; message: string }[] = [];
    for (const parsed of parseEventsBody(body)) {
      const problem =
        parsed.problem ??
        eventProblem(parsed.value, {
          now: at,
          maxFutureSkewMs: options.maxFutureSkewMs ?? DEFAULT_MAX_FUTURE_SKEW_MS,
        });
      if (problem) rejected.push({ line: parsed.line, ...problem });
      else accepted.push({ event: parsed.value as JsonObject, origin: 'serve' });
    }
    await queue.commit(accepted);
    return { accepted: accepted.length, rejected };
  };

  const runGates = async (): Promise<{ results: number; actions: number }> => {
    if (!options.thresholds) return { results: 0, actions: 0 };
    const tick = await queue.exclusive(() =>
      gateTick(store, {
        thresholds: options.thresholds!,
        policy: options.policy,
        windowMs,
        by: options.gateBy ?? DEFAULT_GROUP_BY,
        now: now(),
      }),
    );
    await queue.commit(tickEvents(tick));
    return { results: tick.results.length, actions: tick.actions.length };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://serve.invalid');
    const method = req.method ?? 'GET';
    if (url.pathname === '/healthz' && (method === 'GET' || method === 'HEAD')) {
      sendJson(res, 200, { ok: true });
      return;
    }
    const isRead = method === 'GET' || method === 'HEAD';
    if ((!isRead || !loopback) && !authorised(req))
      throw new HttpError(
        401,
        'http.unauthorised',
        'send Authorization: Bearer TOKEN (the token the server printed)',
      );
    if (url.pathname === '/v1/events') {
      if (method !== 'POST') throw new HttpError(405, 'http.method', 'POST events here');
      sendJson(res, 200, await postEvents(req));
      return;
    }
    if (url.pathname === '/v1/metrics') {
      if (!isRead) throw new HttpError(405, 'http.method', 'GET the metrics');
      const seconds = Number(url.searchParams.get('window') ?? windowMs / 1000);
      if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 366 * 86400)
        throw new HttpError(400, 'http.bad-window', 'window is a positive number of seconds');
      let by: GroupField[];
      try {
        by = parseGroupBy(url.searchParams.get('by') ?? undefined);
      } catch (error) {
        throw new HttpError(400, 'http.bad-group', (error as Error).message);
      }
      const figures = await queue.exclusive(() =>
        windowFigures(store, { windowMs: seconds * 1000, by, now: now() }),
      );
      sendJson(res, 200, {
        ...figures,
        groups: figures.groups.map(({ observation_rows: _rows, ...g }) => g),
      });
      return;
    }
    if (url.pathname === '/v1/actions') {
      if (!isRead) throw new HttpError(405, 'http.method', 'GET the active actions');
      sendJson(res, 200, { actions: await queue.exclusive(() => activeActions(store, now())) });
      return;
    }
    const one = /^\/v1\/actions\/([^/]+)$/.exec(url.pathname);
    if (one) {
      if (method !== 'DELETE') throw new HttpError(405, 'http.method', 'DELETE an action to revoke it');
      const id = decodeURIComponent(one[1]);
      const body = await readBody(req, 64 * 1024);
      let given: JsonObject = {};
      if (body.length > 0) {
        try {
          given = JSON.parse(body.toString('utf8')) as JsonObject;
        } catch {
          throw new HttpError(
            400,
            'json.parse',
            'the body of a revocation is JSON: {"by": "...", "reason": "..."}',
          );
        }
      }
      const by = String(given.by ?? url.searchParams.get('by') ?? 'token holder');
      const reason = String(given.reason ?? url.searchParams.get('reason') ?? 'revoked');
      const found = await queue.exclusive(() => revocationOf(store, id, by, reason, now()));
      if ('missing' in found)
        throw found.missing === 'unknown'
          ? new HttpError(404, 'retrieval.action-unknown', `no feedback action ${id}`)
          : new HttpError(
              409,
              'retrieval.action-inactive',
              `the action ${id} has expired or was revoked already`,
            );
      await queue.commit([{ event: found.event, origin: 'revoke' }]);
      sendJson(res, 200, { revoked: id, by, reason });
      return;
    }
    throw new HttpError(404, 'http.not-found', `no endpoint ${url.pathname}`);
  };

  const inFlight = new Set<Promise<void>>();
  const server: Server = createServer((req, res) => {
    const work = handle(req, res)
      .catch((error) => {
        if (res.headersSent) {
          res.destroy();
          return;
        }
        if (error instanceof HttpError) {
          sendJson(res, error.status, { error: { code: error.code, message: error.message } });
          if (error.status === 413) res.on('finish', () => req.destroy());
        } else
          sendJson(res, 500, {
            error: { code: 'internal', message: 'the event could not be stored; nothing was acknowledged' },
          });
      })
      .finally(() => inFlight.delete(work));
    inFlight.add(work);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new UsageError('usage.port-in-use', `port ${options.port} on ${host} is in use`)
          : error,
      ),
    );
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  let timer: NodeJS.Timeout | undefined;
  let gating: Promise<unknown> = Promise.resolve();
  if (options.thresholds) {
    timer = setInterval(() => {
      gating = runGates().catch(() => undefined);
    }, options.gateIntervalMs ?? DEFAULT_GATE_INTERVAL_MS);
    timer.unref();
  }
  const shownHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    token,
    runGates,
    async close() {
      if (timer) clearInterval(timer);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await Promise.allSettled([...inFlight]);
      await gating;
      await queue.drained();
      server.closeAllConnections();
      await closed;
    },
  };
}
