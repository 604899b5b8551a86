/**
 * Token counts as a provider reports them are not trusted: a count must be a non-negative safe integer. Anything
 * else ("abc", -5, 1e308, 2.5) is dropped (recorded as null) and named, so the η stays valid against its own schema
 * and the run's totals stay numbers.
 */
import type { CompletionUsage } from './providers/provider.js';

const FIELDS = ['input_tokens', 'output_tokens', 'reasoning_tokens', 'cached_input_tokens'] as const;

export interface CheckedUsage {
  usage: CompletionUsage | null;
  /** One note per dropped field: `output_tokens "abc" is not a non-negative integer`. */
  dropped: string[];
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

export function checkUsage(usage: unknown): CheckedUsage {
  if (usage === null || usage === undefined) return { usage: null, dropped: [] };
  if (typeof usage !== 'object' || Array.isArray(usage))
    return { usage: null, dropped: [`usage ${shortJson(usage)} is not an object`] };
  const record = usage as Record<string, unknown>;
  const dropped: string[] = [];
  const out: CompletionUsage = { input_tokens: null, output_tokens: null };
  for (const field of FIELDS) {
    const value = record[field];
    if (value === undefined) continue;
    if (value === null || isCount(value)) out[field] = value;
    else {
      out[field] = null;
      dropped.push(`${field} ${shortJson(value)} is not a non-negative integer`);
    }
  }
  return { usage: out, dropped };
}

function shortJson(value: unknown): string {
  const text = typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}
