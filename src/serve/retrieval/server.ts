/**
 * `evalkit retrieval serve`: the online retrieval loop over one store. A retrieval system POSTs its events; each is
 * checked against the 0.1 schema and stored (committed) before the answer; gates run on a rolling window at an
 * interval and a policy turns failures into feedback actions with a TTL, which the system polls.
 *
 * Endpoints: POST /v1/events, GET /v1/metrics, GET /v1/actions, DELETE /v1/actions/{id}, GET /healthz.
 * Writes always need `Authorization: Bearer TOKEN`; reads need it too when the host is not loopback. Every request
 * must name this server in its Host header (see `allowedHostHeaders`), so a web page cannot read it through DNS
 * rebinding.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../../errors.js';
import { allowedHostHeaders, isLoopback } from '../../io/net/hosts.js';
import { DEFAULT_MAX_DEPTH, parseStrictJson, type StrictParseResult } from '../../io/strict-json.js';
import { checkGateMetricNames } from '../../metrics/retrieval/gate.js';
import type { ThresholdConfig } from '../../metrics/retrieval/thresholds.js';
import type { Store } from '../../store/db.js';
import { eventProblem, DEFAULT_MAX_FUTURE_SKEW_MS } from '../../store/retrieval/events.js';
import { ensureRetrievalTables } from '../../store/retrieval/ingest.js';
import { CommitQueue } from './commit-queue.js';
import { EventSink, stageEvent, type StagedEvent } from './event-sink.js';
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
  /** Host names (besides loopback's and the bound address) that requests may name in their Host header. */
  allowHosts?: readonly string[];
  /** How long `close` waits for requests in flight before it cuts their connections (ms); default 5 s. */
  drainMs?: number;
  /** The clock (tests move it). */
  now?: () => number;
}

export interface RetrievalServer {
  url: string;
  port: number;
  token: string;
  /** Runs the gates once now (also run on the interval). */
  runGates(): Promise<{ results: number; actions: number }>;
  /**
   * Stops taking connections, lets requests in flight finish for up to `drainMs`, then closes the connections
   * still open (their requests were never acknowledged) and waits for the acknowledged commits. The store stays open.
   */
  close(): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
export const DEFAULT_WINDOW_MS = 5 * 60_000;
export const DEFAULT_GATE_INTERVAL_MS = 10_000;
export const DEFAULT_DRAIN_MS = 5_000;
/** The deepest nesting of arrays and objects an event may have (as `ingest` reads a line). */
export const MAX_EVENT_DEPTH = DEFAULT_MAX_DEPTH;

/** Why a token can never be matched by a request (a header cannot carry it), or undefined when it can. */
export function tokenProblem(token: string): string | undefined {
  if (!/^[\x21-\x7e]*$/.test(token))
    return 'the token must be visible ASCII characters without spaces: no Authorization header could carry it';
  if (token.length < 8) return 'the token must be at least 8 characters';
  return undefined;
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
    req.on('close', () => {
      if (!req.complete)
        reject(new HttpError(400, 'http.body-cut', 'the connection closed before the body ended'));
    });
  });
}

export interface ParsedLine {
  line: number;
  value?: unknown;
  problem?: { code: string; message: string };
}

/** The first issue of a strict parse as a line's problem (with its column and pointer), or undefined. */
function parseProblem(parsed: StrictParseResult): ParsedLine['problem'] {
  const issue = parsed.issues[0];
  if (!issue) return undefined;
  const at = issue.pointer ? ` (at ${issue.pointer})` : '';
  return { code: issue.code, message: `column ${issue.column}: ${issue.message}${at}` };
}

/**
 * An NDJSON body (one event a line, blank lines skipped) or a JSON array of events; numbered from 1. Each line is
 * read as `ingest` reads one: strict JSON, so a number that overflows (1e999), a duplicate key or nesting deeper
 * than MAX_EVENT_DEPTH is refused with its code rather than stored altered. In an array body a fault inside one
 * element refuses that element; a fault that stops the parse (a syntax error, too deep) refuses the whole body.
 */
export function parseEventsBody(body: Buffer, maxDepth = MAX_EVENT_DEPTH): ParsedLine[] {
  const text = body.toString('utf8');
  if (text.includes('\uFFFD') && !Buffer.from(text, 'utf8').equals(body))
    return [{ line: 0, problem: { code: 'json.bad-utf8', message: 'the body is not valid UTF-8' } }];
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    const parsed = parseStrictJson(text, { maxDepth: maxDepth + 1 });
    if (!parsed.ok || !Array.isArray(parsed.value))
      return [{ line: 1, problem: parseProblem(parsed) ?? { code: 'json.parse', message: 'not JSON' } }];
    const faults = new Map<number, ParsedLine['problem']>();
    for (const issue of parsed.issues) {
      const index = Number(/^\/(\d+)/.exec(issue.pointer)?.[1] ?? -1);
      if (index >= 0 && !faults.has(index)) faults.set(index, parseProblem({ ...parsed, issues: [issue] }));
    }
    return parsed.value.map((value, i) =>
      faults.has(i) ? { line: i + 1, problem: faults.get(i) } : { line: i + 1, value },
    );
  }
  const out: ParsedLine[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].replace(/\r$/, '');
    if (raw.trim() === '') continue;
    const parsed = parseStrictJson(raw, { maxDepth });
    const problem = parseProblem(parsed);
    out.push(problem ? { line: i + 1, problem } : { line: i + 1, value: parsed.value });
  }
  return out;
}

/** Who revokes and why: a JSON object body {"by", "reason"} (both optional strings), else the query string. */
function revocationBody(body: Buffer, query: URLSearchParams): { by: string; reason: string } {
  let given: Record<string, unknown> = {};
  if (body.length > 0) {
    const shape = 'the body of a revocation is a JSON object: {"by": "...", "reason": "..."}';
    const parsed = parseStrictJson(body);
    if (!parsed.ok || parsed.issues.length > 0) throw new HttpError(400, 'json.parse', shape);
    if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value))
      throw new HttpError(400, 'retrieval.bad-revocation', shape);
    given = parsed.value as Record<string, unknown>;
    for (const key of ['by', 'reason'])
      if (given[key] !== undefined && typeof given[key] !== 'string')
        throw new HttpError(400, 'retrieval.bad-revocation', `${key} is a string: ${shape}`);
  }
  return {
    by: (given.by as string | undefined) ?? query.get('by') ?? 'token holder',
    reason: (given.reason as string | undefined) ?? query.get('reason') ?? 'revoked',
  };
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
  const badToken = tokenProblem(token);
  if (badToken) throw new UsageError('usage.bad-option', badToken);
  if (options.thresholds) checkGateMetricNames(options.thresholds);
  const loopback = isLoopback(host);
  const now = options.now ?? Date.now;
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
  const store = options.store;
  await ensureRetrievalTables(store);
  const sink = await EventSink.open(store);
  const queue = new CommitQueue((events) => sink.write(events));
  /** The Host headers this server answers (known once it listens). */
  let allowedHosts = new Set<string>();

  const authorised = (req: IncomingMessage): boolean => {
    const header = req.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    return sameToken(match?.[1], token);
  };

  const postEvents = async (req: IncomingMessage): Promise<JsonObject> => {
    const body = await readBody(req, limit);
    const at = now();
    const accepted: StagedEvent[] = [];
    const rejected: { line: number; code: string; message: string }[] = [];
    for (const parsed of parseEventsBody(body)) {
      const problem =
        parsed.problem ??
        eventProblem(parsed.value, {
          now: at,
          maxFutureSkewMs: options.maxFutureSkewMs ?? DEFAULT_MAX_FUTURE_SKEW_MS,
        });
      if (problem) {
        rejected.push({ line: parsed.line, ...problem });
        continue;
      }
      try {
        accepted.push(stageEvent(parsed.value as JsonObject, 'serve', at));
      } catch (error) {
        rejected.push({
          line: parsed.line,
          code: 'retrieval.event-unstorable',
          message: `the event cannot be stored: ${(error as Error).message}`,
        });
      }
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
    const at = now();
    await queue.commit(tickEvents(tick).map(({ event, origin }) => stageEvent(event, origin, at)));
    return { results: tick.results.length, actions: tick.actions.length };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!allowedHosts.has((req.headers.host ?? '').toLowerCase()))
      throw new HttpError(
        421,
        'http.bad-host',
        'this server does not answer for that host name (add it with --allow-host)',
      );
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://serve.invalid');
    } catch {
      throw new HttpError(400, 'http.bad-path', 'the request path is not a valid URL path');
    }
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
      let id: string;
      try {
        id = decodeURIComponent(one[1]);
      } catch {
        throw new HttpError(400, 'http.bad-path', `${one[1]} is not a valid percent-encoded action id`);
      }
      const { by, reason } = revocationBody(await readBody(req, 64 * 1024), url.searchParams);
      // The check and the write run as one step on the store, so of concurrent revocations exactly one succeeds.
      const found = await queue.exclusive(async () => {
        const at = now();
        const outcome = await revocationOf(store, id, by, reason, at);
        if ('event' in outcome) await sink.write([stageEvent(outcome.event, 'revoke', at)]);
        return outcome;
      });
      if ('missing' in found)
        throw found.missing === 'unknown'
          ? new HttpError(404, 'retrieval.action-unknown', `no feedback action ${id}`)
          : new HttpError(
              409,
              'retrieval.action-inactive',
              `the action ${id} has expired or was revoked already`,
            );
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
  allowedHosts = allowedHostHeaders(host, port, options.allowHosts);
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
      let deadline: NodeJS.Timeout | undefined;
      const drained = Promise.allSettled([...inFlight]).then(() => true);
      const late = new Promise<false>((resolve) => {
        deadline = setTimeout(() => resolve(false), options.drainMs ?? DEFAULT_DRAIN_MS);
      });
      const inTime = await Promise.race([drained, late]);
      clearTimeout(deadline);
      // Past the deadline, the connections still open (a slow body, say) are cut; their requests were not answered.
      if (!inTime) server.closeAllConnections();
      await Promise.allSettled([...inFlight]);
      await gating;
      await queue.drained();
      server.closeAllConnections();
      await closed;
    },
  };
}
