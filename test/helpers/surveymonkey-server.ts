// A real local HTTP server that speaks the part of the SurveyMonkey v3 API `survey import` reads: bearer-token
// auth, GET /v3/surveys/{id}/details and GET /v3/surveys/{id}/responses/bulk with per_page / page and links.next,
// SurveyMonkey's error bodies. It misbehaves on demand, request by request: a status (with Retry-After), a body
// that is not JSON, a dropped connection, a slow answer, a links.next that points at another host.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Misbehaviour =
  | { status: number; retryAfter?: string; body?: string }
  | { garbage: string }
  | { drop: true }
  | { delayMs: number }
  | { nextOffsite: string }
  /** links.next always points at the next page, past the last response (`total: false` leaves total out). */
  | { endlessNext: true; total?: boolean };

export interface SmRequest {
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
  at: number;
}

export interface SurveyMonkeyServer {
  /** The base URL, …/v3 */
  baseUrl: string;
  requests: SmRequest[];
  /** Called for every request (0-based index); return a misbehaviour or undefined to answer normally. */
  misbehave: (index: number, req: SmRequest) => Misbehaviour | undefined;
  close(): Promise<void>;
}

export interface SurveyData {
  token: string;
  surveyId: string;
  details: unknown;
  responses: unknown[];
}

const smError = (status: number, id: string, name: string, message: string): string =>
  JSON.stringify({
    error: {
      id,
      name,
      docs: 'https://developer.surveymonkey.com/api/v3/#error-codes',
      message,
      http_status_code: status,
    },
  });

export async function startSurveyMonkeyServer(data: SurveyData): Promise<SurveyMonkeyServer> {
  const requests: SmRequest[] = [];
  let baseUrl = '';
  const server: SurveyMonkeyServer = {
    baseUrl: '',
    requests,
    misbehave: () => undefined,
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
  const send = (
    res: ServerResponse,
    status: number,
    body: string,
    headers: Record<string, string> = {},
  ): void => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body);
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const logged: SmRequest = {
      path: url.pathname,
      query: url.searchParams,
      authorization: req.headers.authorization,
      at: Date.now(),
    };
    const index = requests.length;
    requests.push(logged);
    const trouble = server.misbehave(index, logged);
    if (trouble && 'drop' in trouble) {
      req.socket.destroy();
      return;
    }
    if (trouble && 'delayMs' in trouble) await new Promise((r) => setTimeout(r, trouble.delayMs));
    if (trouble && 'status' in trouble) {
      send(
        res,
        trouble.status,
        trouble.body ?? smError(trouble.status, '1050', 'Server Error', 'scripted failure'),
        trouble.retryAfter === undefined ? {} : { 'retry-after': trouble.retryAfter },
      );
      return;
    }
    if (trouble && 'garbage' in trouble) {
      send(res, 200, trouble.garbage, { 'content-type': 'text/html' });
      return;
    }
    if (req.headers.authorization !== `Bearer ${data.token}`) {
      send(
        res,
        401,
        smError(401, '1011', 'Authorization Error', 'The authorization token provided was invalid.'),
      );
      return;
    }
    const base = `/v3/surveys/${data.surveyId}`;
    if (req.method === 'GET' && url.pathname === `${base}/details`) {
      send(res, 200, JSON.stringify(data.details));
      return;
    }
    if (req.method === 'GET' && url.pathname === `${base}/responses/bulk`) {
      const perPage = Number(url.searchParams.get('per_page') ?? '50');
      const page = Number(url.searchParams.get('page') ?? '1');
      const slice = data.responses.slice((page - 1) * perPage, page * perPage);
      const endless = trouble && 'endlessNext' in trouble ? trouble : undefined;
      const more = endless !== undefined || page * perPage < data.responses.length;
      const links: Record<string, string> = {
        self: `${baseUrl}/surveys/${data.surveyId}/responses/bulk?page=${page}&per_page=${perPage}`,
      };
      if (more)
        links.next =
          trouble && 'nextOffsite' in trouble
            ? `${trouble.nextOffsite}/v3/surveys/${data.surveyId}/responses/bulk?page=${page + 1}&per_page=${perPage}`
            : `${baseUrl}/surveys/${data.surveyId}/responses/bulk?page=${page + 1}&per_page=${perPage}`;
      send(
        res,
        200,
        JSON.stringify({
          data: slice,
          per_page: perPage,
          page,
          ...(endless?.total === false ? {} : { total: data.responses.length }),
          links,
        }),
      );
      return;
    }
    send(res, 404, smError(404, '1020', 'Resource Not Found', `no resource at ${url.pathname}`));
  };
  const http = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/v3`;
  server.baseUrl = baseUrl;
  http.keepAliveTimeout = 100;
  return server;
}

/**
 * A SurveyMonkey survey as the evalkit layout makes one for `items` items: page 1 the expertise question, then a
 * page per item with "Item N verdict" (three choices, ids `<N>01`..`<N>03` for the labels given) and "Item N
 * rationale (optional)". Question ids: expertise `9000`, verdict `<N>0`, rationale `<N>1`.
 */
export function surveyDetails(surveyId: string, items: number, labels: readonly string[]): unknown {
  const pages: unknown[] = [
    {
      id: '500',
      title: 'Welcome',
      position: 1,
      questions: [
        {
          id: '9000',
          position: 1,
          family: 'open_ended',
          subtype: 'essay',
          headings: [{ heading: 'Briefly describe your expertise' }],
        },
      ],
    },
  ];
  for (let n = 1; n <= items; n++)
    pages.push({
      id: String(500 + n),
      title: `Item ${n} of ${items}`,
      position: n + 1,
      questions: [
        {
          id: `${n}0`,
          position: 1,
          family: 'single_choice',
          subtype: 'vertical',
          headings: [{ heading: `Item ${n} verdict` }],
          answers: {
            choices: labels.map((text, k) => ({ id: `${n}0${k + 1}`, text, position: k + 1, visible: true })),
          },
        },
        {
          id: `${n}1`,
          position: 2,
          family: 'open_ended',
          subtype: 'essay',
          headings: [
            { heading: `Item ${n} rationale (optional)` },
            { heading: 'Optional: briefly explain why' },
          ],
        },
      ],
    });
  return { id: surveyId, title: 'Analyst recruitment', pages };
}

/** A bulk response: choices[n-1] is the choice index (1-3) for item n, or 0 for no answer. */
export function surveyResponse(
  id: string,
  status: 'completed' | 'partial',
  choices: number[],
  texts: { expertise?: string; rationales?: Record<number, string> } = {},
): unknown {
  const pages: unknown[] = [];
  if (texts.expertise)
    pages.push({ id: '500', questions: [{ id: '9000', answers: [{ text: texts.expertise }] }] });
  choices.forEach((c, i) => {
    const n = i + 1;
    const questions: unknown[] = [];
    if (c > 0) questions.push({ id: `${n}0`, answers: [{ choice_id: `${n}0${c}` }] });
    const why = texts.rationales?.[n];
    if (why) questions.push({ id: `${n}1`, answers: [{ text: why }] });
    pages.push({ id: String(500 + n), questions });
  });
  return {
    id,
    survey_id: '',
    collector_id: '431',
    response_status: status,
    date_created: '2026-11-01T10:00:00+00:00',
    date_modified: '2026-11-01T10:20:00+00:00',
    pages,
  };
}
