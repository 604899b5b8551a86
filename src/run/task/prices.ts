/**
 * Model prices and what calls cost. A prices file (YAML or JSON) maps a model — as `--model` names it, or the id its
 * records carry — to US dollars per million tokens:
 *
 *   openai/gpt-4o-mini: {input: 0.15, output: 0.60, cached_input: 0.075}
 *
 * `input` and `output` are required, `cached_input` (input tokens the provider served from its cache) defaults to
 * `input`. Each mistake is named by file:line:column and JSON pointer with a `prices.*` code. A call's cost is its
 * usage times the price: cached tokens are a part of the input tokens (as OpenAI counts them), priced apart.
 */
import { DataError } from '../../errors.js';
import { parseLocatedText, readText } from './load.js';
import type { CallRecord } from './types.js';

/** US dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cached_input?: number;
}

export interface Prices {
  /** The file, as given. */
  source: string;
  models: Map<string, ModelPrice>;
}

const FIELDS = ['input', 'output', 'cached_input'] as const;
const REQUIRED = ['input', 'output'] as const;

const escapePointer = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Reads and checks a prices file; every mistake in one error (file:line:column, code, JSON pointer). */
export function loadPrices(path: string): Prices {
  const located = parseLocatedText(path, readText(path, 'prices file'), 'prices');
  const problems: string[] = [];
  const codes: string[] = [];
  const problem = (pointer: string, code: string, message: string): void => {
    codes.push(code);
    problems.push(`${path}:${located.at(pointer)} error ${code} ${message} (at ${pointer || '/'})`);
  };
  const models = new Map<string, ModelPrice>();
  const value = located.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    problem(
      '',
      'prices.not-object',
      'a prices file maps each model to {input, output, cached_input}: US dollars per million tokens',
    );
  else {
    for (const [model, entry] of Object.entries(value as Record<string, unknown>)) {
      const at = `/${escapePointer(model)}`;
      if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
        problem(at, 'prices.not-object', `model "${model}": expected {input, output, cached_input?}`);
        continue;
      }
      const e = entry as Record<string, unknown>;
      let ok = true;
      for (const key of Object.keys(e))
        if (!(FIELDS as readonly string[]).includes(key)) {
          ok = false;
          problem(
            `${at}/${escapePointer(key)}`,
            'prices.unknown-field',
            `model "${model}": unknown field "${key}" (expected ${FIELDS.join(', ')})`,
          );
        }
      for (const key of REQUIRED)
        if (e[key] === undefined) {
          ok = false;
          problem(
            at,
            'prices.missing-field',
            `model "${model}": "${key}" is required (US dollars per million tokens)`,
          );
        }
      for (const key of FIELDS) {
        const v = e[key];
        if (v === undefined) continue;
        if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
          ok = false;
          problem(
            `${at}/${key}`,
            'prices.bad-price',
            `model "${model}": "${key}" must be a number of US dollars per million tokens, 0 or more (got ${JSON.stringify(v) ?? String(v)})`,
          );
        }
      }
      if (ok)
        models.set(model, {
          input: e.input as number,
          output: e.output as number,
          ...(e.cached_input !== undefined ? { cached_input: e.cached_input as number } : {}),
        });
    }
  }
  if (problems.length > 0) throw new DataError(codes[0]!, problems.join('\n'));
  return { source: path, models };
}

/** The price of the first of `names` the file lists (the model as `--model` names it, then its record id). */
export function priceOf(prices: Prices | undefined, ...names: string[]): ModelPrice | undefined {
  if (prices === undefined) return undefined;
  for (const name of names) {
    const found = prices.models.get(name);
    if (found !== undefined) return found;
  }
  return undefined;
}

type Usage = CallRecord['usage'];

/** What one call cost in US dollars, or null when its usage is unknown. */
export function callCost(usage: Usage, price: ModelPrice): number | null {
  if (usage === null || !Number.isInteger(usage.input_tokens) || !Number.isInteger(usage.output_tokens))
    return null;
  const cached = Math.min(usage.cached_input_tokens ?? 0, usage.input_tokens!);
  return (
    ((usage.input_tokens! - cached) * price.input +
      cached * (price.cached_input ?? price.input) +
      usage.output_tokens! * price.output) /
    1e6
  );
}

/**
 * What a sample's calls cost together: the sum over the calls that answered (a call that failed after its retries
 * reports no usage and counts nothing), or null when none answered or one that answered reported no usage.
 */
export function callsCost(calls: readonly CallRecord[], price: ModelPrice | undefined): number | null {
  if (price === undefined) return null;
  const answered = calls.filter((c) => c.error === undefined);
  if (answered.length === 0) return null;
  let sum = 0;
  for (const c of answered) {
    const cost = callCost(c.usage, price);
    if (cost === null) return null;
    sum += cost;
  }
  return sum;
}

/** A dollar amount as records keep it: rounded to 1e-12 (a millionth of a micro-dollar), no float noise. */
export const roundUsd = (usd: number): number => Math.round(usd * 1e12) / 1e12;
