/**
 * Reading responses from the SurveyMonkey v3 API: `GET /surveys/{id}/details` (pages → questions with their
 * headings and choice ids) and `GET /surveys/{id}/responses/bulk?per_page=100&page=N` (each response's answers as
 * choice ids or text), following `links.next` until there is none.
 *
 * Bearer-token auth (`Authorization: Bearer <token>`); the token never appears in an error (redact.ts). Each request
 * has a timeout and a response size cap; 429 and 5xx, dropped connections and bodies that are not JSON are retried
 * with backoff, honouring Retry-After (io/net/retry.ts, the policy the model runs use); 401/403 are a clear auth error
 * at once. `links.next` is followed only on the base URL's origin, so the token is never sent to another host.
 */
import { DataError, IoError, UsageError } from '../../errors.js';
import type { Verdict } from '../../formats/infereval/types.js';
import { createRedactor, urlSecrets } from '../../io/net/redact.js';
import { DEFAULT_RETRY, withRetry, type RetryHooks, type RetryPolicy } from '../../io/net/retry.js';
import { isJsonObject } from '../../io/json-value.js';
import { createNodeHttpFetch } from '../../io/net/http-fetch.js';
import { ProviderError, retryAfterMs } from '../../io/net/call-error.js';
import type { QuestionForm } from '../mapping.js';
import type { SurveyRespondent } from '../respondent.js';
import { decodeChoice } from '../verdict.js';
import { checkColumns, titleRole, type ColumnRole, type SurveyKey } from './columns.js';

export const DEFAULT_SURVEYMONKEY_BASE_URL = 'https://api.surveymonkey.com/v3';
/** The largest page size the bulk endpoint serves. */
export const SURVEYMONKEY_PER_PAGE = 100;
export const DEFAULT_SURVEYMONKEY_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

export interface SurveyMonkeyOptions {
  token: string;
  baseUrl?: string;
  /** Retry policy (attempts, backoff, per-request timeout); defaults to the model runs' policy, 30 s timeout. */
  retry?: Partial<RetryPolicy>;
  retryHooks?: RetryHooks;
  maxResponseBytes?: number;
  perPage?: number;
  /**
   * Stop after this many pages of responses (a server whose links.next never ends); default
   * DEFAULT_SURVEYMONKEY_MAX_PAGES. A chain longer than the server's own `total` needs is stopped sooner.
   */
  maxPages?: number;
  signal?: AbortSignal;
  /** Called after each page of responses: responses read so far, the total the server announced, the page count. */
  onPage?: (read: number, total: number | undefined, pages: number) => void;
}

/** 1,000 pages of 100: a survey of 100,000 responses, far beyond a panel of human raters. */
export const DEFAULT_SURVEYMONKEY_MAX_PAGES = 1000;
/** Pages past what the announced total needs before the chain is taken for a loop (responses may arrive meanwhile). */
const PAGES_PAST_TOTAL = 2;

/** The parts of the v3 shapes we read. */
export interface SmChoice {
  id: string;
  text: string;
}
export interface SmQuestion {
  id: string;
  family?: string;
  heading: string;
  choices: SmChoice[];
}
export interface SmSurveyDetails {
  id: string;
  title: string | null;
  questions: SmQuestion[];
}
export interface SmAnswer {
  choice_id?: string;
  text?: string;
  other_id?: string;
}
export interface SmResponse {
  id: string;
  response_status: string;
  date_created: string | null;
  /** question id → answers */
  answers: Map<string, SmAnswer[]>;
}

const idOf = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined;

function badShape(what: string, url: string): IoError {
  return new IoError('survey.surveymonkey-bad-response', `SurveyMonkey ${url}: ${what}`);
}

export class SurveyMonkeyClient {
  readonly baseUrl: string;
  readonly #token: string;
  readonly #fetch: typeof fetch;
  readonly #policy: RetryPolicy;
  readonly #hooks: RetryHooks;
  readonly #redact: (s: string) => string;
  readonly #signal: AbortSignal;
  readonly #origin: string;
  readonly #basePath: string;
  readonly #onPage: SurveyMonkeyOptions['onPage'];

  constructor(options: SurveyMonkeyOptions) {
    if (options.token.trim() === '')
      throw new UsageError(
        'survey.surveymonkey-token-missing',
        'no SurveyMonkey access token given (developer.surveymonkey.com → My Apps → Settings → Access Token)',
      );
    const base = options.baseUrl ?? DEFAULT_SURVEYMONKEY_BASE_URL;
    const redactor = createRedactor([options.token, ...urlSecrets(base)]);
    this.#redact = redactor.text;
    if (!URL.canParse(base) || !/^https?:$/.test(new URL(base).protocol))
      throw new UsageError(
        'survey.surveymonkey-base-url',
        `the SurveyMonkey base URL ${JSON.stringify(this.#redact(base))} is not an http(s) URL`,
      );
    const parsed = new URL(base);
    parsed.hash = '';
    parsed.pathname = parsed.pathname.replace(/\/+$/, '');
    this.baseUrl = parsed.href;
    this.#basePath = parsed.pathname;
    this.#origin = parsed.origin;
    this.#token = options.token.trim();
    this.#fetch = createNodeHttpFetch({
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_SURVEYMONKEY_MAX_RESPONSE_BYTES,
    });
    this.#policy = { ...DEFAULT_RETRY, timeoutMs: 30_000, ...options.retry };
    this.#hooks = options.retryHooks ?? {};
    this.#signal = options.signal ?? new AbortController().signal;
    this.#onPage = options.onPage;
  }

  /** GET a JSON document, with retries; a URL off the base URL's origin is refused. */
  async getJson(url: string): Promise<unknown> {
    if (new URL(url).origin !== this.#origin)
      throw badShape(
        `refusing to send the token to ${new URL(url).origin}, another host than the base URL`,
        this.#shown(url),
      );
    const result = await withRetry(
      async (signal) => {
        let res: Response;
        try {
          res = await this.#fetch(url, {
            method: 'GET',
            headers: { authorization: `Bearer ${this.#token}`, accept: 'application/json' },
            signal,
          });
        } catch (e) {
          if (e instanceof ProviderError || signal.aborted) throw e;
          const cause = (e as { cause?: { message?: string } }).cause?.message;
          throw new ProviderError(
            'connection',
            `connection failed${cause ? ` (${cause})` : ''}: ${(e as Error).message}`,
            {
              transient: true,
            },
          );
        }
        const text = await res.text();
        if (res.status === 200) {
          try {
            return JSON.parse(text) as unknown;
          } catch {
            throw new ProviderError(
              'bad-json',
              `the body is not JSON (${text.length} characters: ${JSON.stringify(text.slice(0, 60))})`,
              {
                transient: true,
              },
            );
          }
        }
        const message = errorMessage(text);
        const kind = res.status === 401 || res.status === 403 ? 'auth' : `http-${res.status}`;
        const transient = res.status === 429 || res.status >= 500;
        throw new ProviderError(kind, `HTTP ${res.status}${message ? `: ${message}` : ''}`, {
          transient,
          status: res.status,
          retryAfterMs: retryAfterMs(res.headers),
        });
      },
      this.#policy,
      this.#signal,
      this.#hooks,
    );
    if (result.error === undefined) return result.value;
    const e = result.error;
    const tries = result.attempts > 1 ? ` (after ${result.attempts} attempts)` : '';
    const text = this.#redact(`SurveyMonkey ${this.#shown(url)}: ${e.message}${tries}`);
    if (e.kind === 'auth')
      throw new UsageError(
        'survey.surveymonkey-auth',
        `${text}; the access token was refused (check the token, and that its app may read this survey's responses)`,
      );
    if (e.status === 404) throw new IoError('survey.surveymonkey-not-found', `${text}; no such survey?`);
    throw new IoError('survey.surveymonkey-api', text);
  }

  /** A URL as shown in messages: its path below the base URL's (with its query), redacted. */
  #shown(url: string): string {
    if (!URL.canParse(url)) return this.#redact(url);
    const u = new URL(url);
    const below =
      u.origin === this.#origin && u.pathname.startsWith(this.#basePath)
        ? `${u.pathname.slice(this.#basePath.length) || '/'}${u.search}`
        : url;
    return this.#redact(below);
  }

  /** `path` under the base URL, built with the URL API: a base URL's own query is kept, `query` added after it. */
  endpoint(path: string, query: Record<string, string> = {}): string {
    const u = new URL(this.baseUrl);
    u.pathname = `${this.#basePath}${path}`;
    for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
    return u.href;
  }

  async surveyDetails(surveyId: string): Promise<SmSurveyDetails> {
    const url = this.endpoint(`/surveys/${encodeURIComponent(surveyId)}/details`);
    return parseDetails(await this.getJson(url), this.#shown(url));
  }

  async responses(
    surveyId: string,
    perPage = SURVEYMONKEY_PER_PAGE,
    maxPages = DEFAULT_SURVEYMONKEY_MAX_PAGES,
  ): Promise<SmResponse[]> {
    let url: string | undefined = this.endpoint(`/surveys/${encodeURIComponent(surveyId)}/responses/bulk`, {
      per_page: String(perPage),
      page: '1',
    });
    const out: SmResponse[] = [];
    const seen = new Set<string>();
    let total: number | undefined;
    let served = perPage;
    while (url !== undefined) {
      if (seen.has(url)) throw badShape('links.next repeats a page already read', this.#shown(url));
      if (seen.size >= maxPages)
        throw new IoError(
          'survey.surveymonkey-too-many-pages',
          `SurveyMonkey ${this.#shown(url)}: links.next goes on past ${maxPages} pages (${out.length} responses read${total === undefined ? '' : `, the server announced ${total}`}); stopped`,
        );
      if (total !== undefined && seen.size >= Math.ceil(total / served) + PAGES_PAST_TOTAL)
        throw badShape(
          `links.next goes on past page ${seen.size}, more than the ${total} responses the server announced need at ${served} a page (${out.length} read); stopped`,
          this.#shown(url),
        );
      seen.add(url);
      const shown = this.#shown(url);
      const body = await this.getJson(url);
      if (!isJsonObject(body) || !Array.isArray(body.data))
        throw badShape('no "data" list of responses', shown);
      for (const [i, raw] of body.data.entries()) out.push(parseResponse(raw, `${shown} data[${i}]`));
      total = typeof body.total === 'number' && Number.isSafeInteger(body.total) ? body.total : undefined;
      if (typeof body.per_page === 'number' && Number.isSafeInteger(body.per_page) && body.per_page > 0)
        served = body.per_page;
      this.#onPage?.(out.length, total, seen.size);
      const next = isJsonObject(body.links) ? body.links.next : undefined;
      if (next === undefined || next === null || next === '') url = undefined;
      else if (typeof next !== 'string' || !URL.canParse(next, this.baseUrl))
        throw badShape('links.next is not a URL', shown);
      else url = new URL(next, this.baseUrl).href;
    }
    return out;
  }
}

/** SurveyMonkey's error body: {"error": {"id", "name", "message", "http_status_code"}}. */
function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as unknown;
    if (isJsonObject(body) && isJsonObject(body.error)) {
      const e = body.error;
      return [e.name, e.message].filter((s) => typeof s === 'string' && s !== '').join(': ');
    }
  } catch {
    // not JSON: show its start
  }
  return text.trim().slice(0, 200);
}

function parseDetails(body: unknown, shown: string): SmSurveyDetails {
  if (!isJsonObject(body) || !Array.isArray(body.pages))
    throw badShape('the survey details have no "pages"', shown);
  const questions: SmQuestion[] = [];
  for (const page of body.pages) {
    if (!isJsonObject(page) || !Array.isArray(page.questions)) continue;
    for (const q of page.questions) {
      const id = isJsonObject(q) ? idOf(q.id) : undefined;
      if (!isJsonObject(q) || id === undefined) throw badShape('a question without an id', shown);
      const headings = Array.isArray(q.headings) ? q.headings : [];
      const heading =
        headings
          .map((h) => (isJsonObject(h) && typeof h.heading === 'string' ? h.heading : ''))
          .find((h) => h !== '') ?? '';
      const answers = isJsonObject(q.answers) ? q.answers : {};
      const choices = (Array.isArray(answers.choices) ? answers.choices : []).flatMap((c): SmChoice[] => {
        const cid = isJsonObject(c) ? idOf(c.id) : undefined;
        return cid !== undefined && isJsonObject(c) && typeof c.text === 'string'
          ? [{ id: cid, text: c.text }]
          : [];
      });
      questions.push({ id, family: typeof q.family === 'string' ? q.family : undefined, heading, choices });
    }
  }
  return { id: idOf(body.id) ?? '', title: typeof body.title === 'string' ? body.title : null, questions };
}

function parseResponse(raw: unknown, shown: string): SmResponse {
  const id = isJsonObject(raw) ? idOf(raw.id) : undefined;
  if (!isJsonObject(raw) || id === undefined) throw badShape('a response without an id', shown);
  const answers = new Map<string, SmAnswer[]>();
  for (const page of Array.isArray(raw.pages) ? raw.pages : []) {
    if (!isJsonObject(page) || !Array.isArray(page.questions)) continue;
    for (const q of page.questions) {
      const qid = isJsonObject(q) ? idOf(q.id) : undefined;
      if (!isJsonObject(q) || qid === undefined || !Array.isArray(q.answers)) continue;
      answers.set(
        qid,
        q.answers.filter(isJsonObject).map((a) => ({
          choice_id: idOf(a.choice_id),
          other_id: idOf(a.other_id),
          text: typeof a.text === 'string' ? a.text : undefined,
        })),
      );
    }
  }
  return {
    id,
    response_status: typeof raw.response_status === 'string' ? raw.response_status : 'unknown',
    date_created: typeof raw.date_created === 'string' ? raw.date_created : null,
    answers,
  };
}

/**
 * Respondents from the API's survey details and responses. Question headings are read like Google Forms / CSV
 * column titles (`Item N verdict`, `Item N rationale`); the first other question with text answers is the
 * expertise question. A response is finished when its status is `completed` (`partial`, `overquota` and
 * `disqualified` are not).
 */
export function surveyMonkeyRespondents(
  details: SmSurveyDetails,
  responses: readonly SmResponse[],
  key: SurveyKey,
  form: QuestionForm,
  surveyId: string,
): { respondents: SurveyRespondent[]; ignoredColumns: string[] } {
  const where = `SurveyMonkey survey ${surveyId}`;
  const headings = details.questions.map((q) => q.heading);
  const ignoredColumns: string[] = [];
  let expertiseSeen = false;
  const roles = details.questions.map((q): ColumnRole => {
    const role = titleRole(q.heading, key, where);
    if (role) return role;
    if (!expertiseSeen && q.family !== 'single_choice' && q.family !== 'multiple_choice') {
      expertiseSeen = true;
      return { kind: 'expertise' };
    }
    ignoredColumns.push(q.heading);
    return { kind: 'other' };
  });
  checkColumns(headings, roles, key, where, (_row, n) => `Item ${n} verdict`);

  const respondents = responses.map((r): SurveyRespondent => {
    const origin = `${where}, response ${r.id}`;
    const verdicts = new Map<string, Verdict>();
    const rationales = new Map<string, string>();
    let expertise: string | null = null;
    details.questions.forEach((q, i) => {
      const role = roles[i];
      const answer = r.answers.get(q.id)?.[0];
      if (answer === undefined || role.kind === 'other') return;
      const text = (answer.text ?? '').trim();
      if (role.kind === 'verdict') {
        let label = text;
        if (answer.choice_id !== undefined) {
          const choice = q.choices.find((c) => c.id === answer.choice_id);
          if (choice === undefined)
            throw new DataError(
              'survey.unknown-choice',
              `${origin}: question ${JSON.stringify(q.heading)}: choice id ${answer.choice_id} is not one of the question's choices`,
            );
          label = choice.text;
        }
        if (label === '') return;
        verdicts.set(
          role.itemId,
          decodeChoice(label, form, { where: origin, respondent: r.id, column: q.heading }),
        );
      } else if (text !== '') {
        if (role.kind === 'rationale') rationales.set(role.itemId, text);
        else expertise = text;
      }
    });
    return {
      responseId: r.id,
      startedAt: r.date_created,
      finished: r.response_status === 'completed',
      expertise,
      verdicts,
      rationales,
      origin,
    };
  });
  return { respondents, ignoredColumns };
}
