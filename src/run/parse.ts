/**
 * Parsing a model's response into a verdict, as infereval does it: all matches of the verdict regex
 * (case-insensitive); the last *committed* match wins (one preceded by "Verdict:", or a lone token on the
 * last non-empty line of a multi-line answer), else the first match.
 */
import { boundedExec, boundedMatchAll, REGEX_TIMEOUT_CODE } from '../io/bounded-regex.js';
import { DataError } from '../errors.js';
import type { ParseStatus, Verdict } from './types.js';

export interface ParsedVerdict {
  verdict: Verdict;
  status: ParseStatus;
}

const WORD = '[\\p{L}\\p{N}\\p{M}_]';
// Python's \b is Unicode-aware; JavaScript's is ASCII-only, even with the u flag.
const UNICODE_BOUNDARY = `(?:(?<=${WORD})(?!${WORD})|(?<!${WORD})(?=${WORD}))`;
const COMMIT_PREFIX = /verdict\s*[:-]?\s*[*_`"']*\s*$/iu;
const STRIP_CHARS = new Set([...' \t*_`"\'.!:()[]']);
const cache = new Map<string, RegExp>();

/** Compiles a (Python-flavoured) verdict regex once: global, case-insensitive, Unicode word boundaries. */
export function compileVerdictRegex(source: string): RegExp {
  let re = cache.get(source);
  if (re === undefined) {
    try {
      re = new RegExp(source.replace(/(^|[^\\])((?:\\\\)*)\\b/g, `$1$2${UNICODE_BOUNDARY}`), 'giu');
    } catch {
      re = new RegExp(source, 'gi');
    }
    cache.set(source, re);
  }
  return re;
}

function stripPython(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && STRIP_CHARS.has(s[start])) start++;
  while (end > start && STRIP_CHARS.has(s[end - 1])) end--;
  return s.slice(start, end);
}

const SUPPORT_TOKENS: Record<string, Verdict> = { GOOD: 'good', BAD: 'bad', ABSTAIN: 'abstain' };
const COHERENCE_TOKENS: Record<string, Verdict> = { INCOHERENT: 'good', COHERENT: 'bad', UNCLEAR: 'abstain' };

function tokenOf(match: RegExpExecArray): string {
  return match[1] ?? match[0];
}

/** Support-form parsing (default regex or the benchmark's override). */
export function parseVerdict(text: string, regexSource: string, finishReason?: string | null): ParsedVerdict {
  const matches = boundedMatches(() => boundedMatchAll(compileVerdictRegex(regexSource), text));
  if (matches === undefined) return UNPARSEABLE;
  if (matches.length === 0) return noMatch(finishReason);

  // The last non-empty line of a multi-line response, as [start, end) offsets.
  let lastLine: [number, number] | undefined;
  if (text.includes('\n')) {
    let end = text.length;
    for (;;) {
      const start = text.lastIndexOf('\n', end - 1) + 1;
      if (text.slice(start, end).trim() !== '' || start === 0) {
        lastLine = [start, end];
        break;
      }
      end = start - 1;
    }
  }

  let committed: RegExpExecArray | undefined;
  for (const m of matches) {
    const before = text.slice(Math.max(0, m.index - 32), m.index);
    let isCommitted = COMMIT_PREFIX.test(before);
    if (!isCommitted && lastLine !== undefined && m.index >= lastLine[0] && m.index < lastLine[1]) {
      isCommitted = stripPython(text.slice(lastLine[0], lastLine[1])) === m[0];
    }
    if (isCommitted) committed = m;
  }
  const chosen = committed ?? matches[0];
  const verdict = SUPPORT_TOKENS[tokenOf(chosen).toUpperCase()];
  return verdict === undefined ? noMatch(finishReason) : { verdict, status: 'ok' };
}

/** Coherence-form decoding: the first match only; INCOHERENT → good, COHERENT → bad, UNCLEAR → abstain. */
export function parseCoherence(
  text: string,
  regexSource: string,
  finishReason?: string | null,
): ParsedVerdict {
  const re = compileVerdictRegex(regexSource);
  const m = boundedMatches(() => boundedExec(re, text));
  re.lastIndex = 0;
  if (m === undefined) return UNPARSEABLE;
  if (m === null) return noMatch(finishReason);
  const verdict = COHERENCE_TOKENS[tokenOf(m).toUpperCase()];
  return verdict === undefined ? noMatch(finishReason) : { verdict, status: 'ok' };
}

export function isBudgetStop(finishReason?: string | null): boolean {
  return finishReason === 'length' || finishReason === 'max_tokens';
}

/**
 * A benchmark's regex runs within a time bound (src/io/bounded-regex.ts): one that backtracks without end on an
 * answer leaves that answer unparseable (undefined here) instead of hanging the run.
 */
function boundedMatches<T>(match: () => T): T | undefined {
  try {
    return match();
  } catch (error) {
    if (error instanceof DataError && error.code === REGEX_TIMEOUT_CODE) return undefined;
    throw error;
  }
}

const UNPARSEABLE: ParsedVerdict = { verdict: 'abstain', status: 'unparseable' };

function noMatch(finishReason?: string | null): ParsedVerdict {
  return { verdict: 'abstain', status: isBudgetStop(finishReason) ? 'budget_clipped' : 'unparseable' };
}
