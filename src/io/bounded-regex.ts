/**
 * Regular expressions from users (a task's `pattern` scorer, a promptfoo `regex` assertion, a JSON Schema `pattern`,
 * an infereval benchmark's verdict regex)
 * run against model answers with a time bound. JavaScript's backtracking engine takes exponential time on patterns
 * such as `(a+)+$` and, while it runs, the process handles no signal; an answer that triggers it is journaled, so a
 * rerun would hang again. Each match runs in this thread under a `vm` time limit: Node's watchdog stops the match
 * (V8's termination, as for a worker that is terminated), with no thread or worker started per match and no message
 * passed. Over the limit, the match throws a DataError with code `run.regex-timeout`, which the scorer reports as
 * that sample's error; a signal that arrived meanwhile is handled as soon as the match is stopped.
 */
import { Script, createContext } from 'node:vm';
import { DataError } from '../errors.js';

/** How long one match of a user's regex may run. A linear match of a 50 MB answer takes far less. */
export const REGEX_TIME_LIMIT_MS = 1000;

export const REGEX_TIMEOUT_CODE = 'run.regex-timeout';

/** A compiled user regex whose `exec` and `test` are bounded in time. */
export interface BoundedRegExp {
  readonly source: string;
  readonly flags: string;
  exec(text: string): RegExpExecArray | null;
  test(text: string): boolean;
  toString(): string;
}

// One context and one script for every match: `re` and `input` are set before each run.
const sandbox = createContext({ re: null as RegExp | null, input: '' });
const execScript = new Script('re.lastIndex = 0; re.exec(input)');
const matchAllScript = new Script('Array.from(input.matchAll(re))');

function runBounded(re: RegExp, input: string, limitMs: number, script = execScript): RegExpExecArray | null {
  sandbox.re = re;
  sandbox.input = input;
  try {
    return script.runInContext(sandbox, { timeout: limitMs }) as RegExpExecArray | null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT')
      throw new DataError(
        REGEX_TIMEOUT_CODE,
        `the regular expression /${re.source}/${re.flags} ran longer than ${limitMs} ms on an answer of ${input.length} characters (catastrophic backtracking); no value for this sample`,
      );
    throw error;
  } finally {
    sandbox.re = null;
    sandbox.input = '';
  }
}

/** Every match of a global regex in `input` (as `input.matchAll(re)`), within `limitMs` in all. */
export function boundedMatchAll(re: RegExp, input: string, limitMs = REGEX_TIME_LIMIT_MS): RegExpExecArray[] {
  return runBounded(re, input, limitMs, matchAllScript) as unknown as RegExpExecArray[];
}

/** The first match of `re` in `input` from its start (`lastIndex` reset), within `limitMs`. */
export const boundedExec = (
  re: RegExp,
  input: string,
  limitMs = REGEX_TIME_LIMIT_MS,
): RegExpExecArray | null => runBounded(re, input, limitMs);

/**
 * A user's regex, compiled now (a syntax error throws as `new RegExp` does), matched later within `limitMs`.
 */
export function boundedRegExp(source: string, flags = '', limitMs = REGEX_TIME_LIMIT_MS): BoundedRegExp {
  const re = new RegExp(source, flags);
  return {
    source: re.source,
    flags: re.flags,
    exec: (text) => runBounded(re, text, limitMs),
    test: (text) => runBounded(re, text, limitMs) !== null,
    toString: () => re.toString(),
  };
}

/**
 * Ajv's `code.regExp` option: the engine Ajv compiles a schema's `pattern` and `patternProperties` with, so that a
 * user's schema validates an answer within the same bound.
 */
export const boundedRegExpEngine = Object.assign(
  (pattern: string, flags: string) => boundedRegExp(pattern, flags),
  { code: 'boundedRegExp' },
);
