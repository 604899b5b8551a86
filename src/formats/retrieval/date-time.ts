/**
 * The `ts` of retrieval events and result rows is an RFC 3339 date-time (JSON Schema's `format: "date-time"`).
 * Ajv treats formats as annotations, and `Date.parse` rolls an impossible date over (2026-02-30 becomes 2 March),
 * so the time is checked here, field by field, and an event is never stored with a time other than the one sent.
 */
import type { CrossFieldRule, RuleIssue } from '../types.js';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

const daysIn = (year: number, month: number): number =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : [4, 6, 9, 11].includes(month)
      ? 30
      : 31;

/** Why `text` is not an RFC 3339 date-time of a real calendar day and clock time, or undefined when it is one. */
export function dateTimeProblem(text: string): string | undefined {
  const m = RFC3339.exec(text);
  if (!m) return `${JSON.stringify(text)} is not an RFC 3339 date-time (e.g. 2026-01-31T12:00:00Z)`;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month))
    return `${JSON.stringify(text)} names a day that does not exist`;
  // No leap second (:60): no clock here can place it. The offset's hours and minutes are clock values too.
  if (hour > 23 || minute > 59 || second > 59 || Number(m[9] ?? 0) > 23 || Number(m[10] ?? 0) > 59)
    return `${JSON.stringify(text)} names a time of day that does not exist`;
  return undefined;
}

/** The `retrieval.bad-time` rule: a document's `ts` (when it is a string) is a real date-time. */
export const realTimeRule: CrossFieldRule = {
  code: 'retrieval.bad-time',
  description: '`ts` is an RFC 3339 date-time of a day and time that exist',
  check(doc: unknown): RuleIssue[] {
    const ts = (doc as { ts?: unknown } | null)?.ts;
    if (typeof ts !== 'string') return [];
    const problem = dateTimeProblem(ts);
    return problem ? [{ pointer: '/ts', code: 'retrieval.bad-time', message: problem }] : [];
  },
};
