/**
 * promptfoo's trajectory assertions (`trajectory:tool-used`, `trajectory:tool-sequence`, `trajectory:tool-args-match`,
 * `trajectory:step-count`) and `tool-call-f1`, by promptfoo's rules, on an agent sample's recorded trajectory: pure
 * functions of its tool calls and model turns, as evalkit's own trajectory scorers are (trajectory-scorers.ts, whose
 * in-order and F1 rules they share).
 *
 * A trajectory is a list of steps: each model turn is a `message` step, then each tool call of that turn a `tool`
 * step named by the tool (with the call's arguments when they are a JSON object). A name pattern matches a step's
 * name as a glob (`*` any characters, `?` one), case-insensitive, whole name. Every value is checked when the config
 * is read (`promptfoo.assert-value`), as promptfoo throws on a value it cannot read. Each score is 1 or 0 (pass or
 * fail, after `not-`), except tool-call-f1's, which is the F1 itself.
 */
import { isDeepStrictEqual } from 'node:util';
import { DataError } from '../../errors.js';
import { isObject } from '../../io/json-value.js';
import { f1Score, inOrder } from './trajectory-scorers.js';
import type { LocalScorer, Score, Trajectory } from './types.js';

export const TRAJECTORY_ASSERTIONS = [
  'trajectory:tool-used',
  'trajectory:tool-sequence',
  'trajectory:tool-args-match',
  'trajectory:step-count',
  'tool-call-f1',
];

/** promptfoo's step kinds; an evalkit trajectory has `message` and `tool` steps only (a filter by another counts 0). */
const STEP_TYPES = ['tool', 'command', 'search', 'reasoning', 'message', 'span'];

interface Step {
  type: 'message' | 'tool';
  name: string;
  args?: Record<string, unknown>;
}

interface Matcher {
  /** The glob, or undefined for any name. */
  pattern?: string;
  types?: string[];
}

type Obj = Record<string, unknown>;

/** The sample's steps in order: each turn's message, then the calls it made. */
export function trajectorySteps(t: Trajectory): Step[] {
  const steps: Step[] = [];
  for (let turn = 0; turn < t.turns; turn++) {
    steps.push({ type: 'message', name: 'message' });
    for (const c of t.calls)
      if (c.turn === turn)
        steps.push({ type: 'tool', name: c.name, ...(c.arguments !== null ? { args: c.arguments } : {}) });
  }
  return steps;
}

/**
 * promptfoo's name glob: `*` any characters, `?` one, the rest literal; case-insensitive, whole name. Matched without
 * a regular expression: a pattern of many stars against a long name (the name is the model's) would make a
 * backtracking regex take exponential time; this walk backtracks only to the last star, O(name × pattern).
 */
export function globMatches(name: string, pattern: string): boolean {
  const s = name.toLowerCase();
  const p = pattern.toLowerCase();
  let i = 0;
  let j = 0;
  let star = -1;
  let mark = 0;
  while (i < s.length) {
    if (j < p.length && (p[j] === '?' || p[j] === s[i])) {
      i++;
      j++;
    } else if (j < p.length && p[j] === '*') {
      star = j++;
      mark = i;
    } else if (star >= 0) {
      j = star + 1;
      i = ++mark;
    } else return false;
  }
  while (j < p.length && p[j] === '*') j++;
  return j === p.length;
}

const matches = (step: Step, m: Matcher): boolean =>
  (m.types === undefined || m.types.includes(step.type)) &&
  (m.pattern === undefined || globMatches(step.name, m.pattern));

const bad = (where: string, message: string): never => {
  throw new DataError('promptfoo.assert-value', `${where}: ${message}`);
};

/** A matcher from a string or an object's `pattern` / `name` (pattern first, as promptfoo), with a default type. */
function matcherOf(value: unknown, where: string, defaultType?: string, named = true): Matcher {
  if (typeof value === 'string') return { pattern: value, ...(defaultType ? { types: [defaultType] } : {}) };
  if (!isObject(value)) return bad(where, 'a step is a tool name or {name | pattern}');
  const pattern = value.pattern ?? value.name;
  if (pattern !== undefined && typeof pattern !== 'string') bad(where, 'name and pattern are strings');
  if (named && pattern === undefined) bad(where, 'the value needs a name or a pattern');
  const type = value.type ?? defaultType;
  const types = type === undefined ? undefined : Array.isArray(type) ? type : [type];
  if (types !== undefined && types.some((t) => !STEP_TYPES.includes(t as string)))
    bad(where, `type is one of ${STEP_TYPES.join(', ')}`);
  return {
    ...(pattern !== undefined ? { pattern: pattern as string } : {}),
    ...(types !== undefined ? { types: types as string[] } : {}),
  };
}

const count = (value: Obj, key: string, where: string): number | undefined => {
  const v = value[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) return bad(where, `${key} is a number`);
  return v;
};

const within = (n: number, min: number | undefined, max: number | undefined): boolean =>
  (min === undefined || n >= min) && (max === undefined || n <= max);

type Rule = (steps: Step[]) => { pass: boolean; score?: number };

/** trajectory:tool-used: a name, a list (each used; `not-`: none used) or {name | pattern, min = 1, max}. */
function toolUsed(value: unknown, negate: boolean, where: string): Rule {
  if (typeof value === 'string' || (Array.isArray(value) && value.every((v) => typeof v === 'string'))) {
    const list = (typeof value === 'string' ? [value] : (value as string[])).map((v) =>
      matcherOf(v, where, 'tool'),
    );
    if (list.length === 0) bad(where, 'at least one tool is expected');
    return (steps) => {
      const used = list.filter((m) => steps.some((s) => matches(s, m)));
      return { pass: negate ? used.length === 0 : used.length === list.length };
    };
  }
  if (!isObject(value))
    return bad(where, 'the value is a tool name, a list of names or {name | pattern, min, max}');
  const m = matcherOf(value, where, 'tool');
  const min = count(value, 'min', where) ?? 1;
  const max = count(value, 'max', where);
  return (steps) => {
    const n = steps.filter((s) => matches(s, m)).length;
    return { pass: within(n, min, max) !== negate };
  };
}

/** trajectory:tool-sequence: a list, or {steps, mode: in_order (default) | exact}. */
function toolSequence(value: unknown, negate: boolean, where: string): Rule {
  const spec = Array.isArray(value)
    ? { steps: value, mode: 'in_order' }
    : isObject(value)
      ? value
      : undefined;
  if (spec === undefined) return bad(where, 'the value is a list of steps or {steps, mode}');
  const mode = spec.mode ?? 'in_order';
  // promptfoo reads any mode but exact as in_order; evalkit refuses the others rather than guess.
  if (mode !== 'in_order' && mode !== 'exact') bad(where, 'mode is in_order or exact');
  if (!Array.isArray(spec.steps) || spec.steps.length === 0) bad(where, 'steps is a non-empty list');
  const wanted = (spec.steps as unknown[]).map((s, i) => matcherOf(s, `${where} steps[${i}]`, 'tool'));
  return (steps) => {
    const tools = steps.filter((s) => s.type === 'tool');
    const ok =
      mode === 'exact'
        ? tools.length === wanted.length && wanted.every((m, i) => matches(tools[i], m))
        : inOrder(tools, wanted, matches);
    return { pass: ok !== negate };
  };
}

const isIgnored = (key: string, ignore: string[]): boolean =>
  ignore.some((entry) => entry === key || (/[*?]/.test(entry) && globMatches(key, entry)));

const without = (value: unknown, drop: (key: string, v: unknown) => boolean): unknown =>
  isObject(value) ? Object.fromEntries(Object.entries(value).filter(([k, v]) => !drop(k, v))) : value;

/** promptfoo's partial match: objects as subsets (recursively), lists item by item of the same length, else equal. */
function partial(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected))
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((e, i) => partial(actual[i], e))
    );
  if (isObject(expected))
    return (
      isObject(actual) &&
      Object.entries(expected).every(([k, e]) => Object.hasOwn(actual, k) && partial(actual[k], e))
    );
  return isDeepStrictEqual(actual, expected);
}

/** trajectory:tool-args-match: {name | pattern, args | arguments, mode: partial (default) | exact, defaults, ignore}. */
function toolArgsMatch(value: unknown, negate: boolean, where: string): Rule {
  if (!isObject(value)) return bad(where, 'the value is {name | pattern, args, mode, defaults, ignore}');
  const m = matcherOf(value, where, 'tool');
  const expected = Object.hasOwn(value, 'args') ? value.args : value.arguments;
  if (expected === undefined) bad(where, 'the value needs args (or arguments)');
  const mode = value.mode ?? 'partial';
  if (mode !== 'partial' && mode !== 'exact') bad(where, 'mode is partial or exact');
  const defaults = value.defaults;
  if (defaults !== undefined && !isObject(defaults))
    bad(where, 'defaults maps argument names to their default values');
  const ignore =
    value.ignore === undefined ? [] : Array.isArray(value.ignore) ? value.ignore : [value.ignore];
  if (ignore.some((e) => typeof e !== 'string' || e.trim() === ''))
    bad(where, 'ignore is an argument name or a list of names');
  const ignored = (k: string): boolean => isIgnored(k, ignore as string[]);
  const want = without(expected, ignored);
  const fits = (args: Record<string, unknown>): boolean => {
    // ignore drops keys on both sides; defaults drop an observed key whose value is its default.
    const got = without(
      without(args, ignored),
      (k, v) =>
        defaults !== undefined && Object.hasOwn(defaults, k) && isDeepStrictEqual(v, (defaults as Obj)[k]),
    );
    return mode === 'exact' ? isDeepStrictEqual(got, want) : partial(got, want);
  };
  return (steps) => {
    const hit = steps.find((s) => matches(s, m) && s.args !== undefined && fits(s.args));
    return { pass: (hit !== undefined) !== negate };
  };
}

/** trajectory:step-count: {type, name | pattern, min, max} (min or max needed); every step counts unless filtered. */
function stepCount(value: unknown, negate: boolean, where: string): Rule {
  if (!isObject(value)) return bad(where, 'the value is {type, pattern, min, max}');
  const m = matcherOf(value, where, undefined, false);
  const min = count(value, 'min', where);
  const max = count(value, 'max', where);
  if (min === undefined && max === undefined) bad(where, 'the value needs min or max');
  return (steps) => {
    const n = steps.filter((s) => matches(s, m)).length;
    return { pass: within(n, min, max) !== negate };
  };
}

/** tool-call-f1: the F1 of the set of tools called against the expected names; passes at ≥ threshold (default 1). */
function toolCallF1(value: unknown, negate: boolean, where: string, threshold: number | undefined): Rule {
  const names = Array.isArray(value)
    ? value.map((v) => String(v).trim())
    : typeof value === 'string'
      ? value.split(',').map((v) => v.trim())
      : bad(where, 'the value is a list of tool names or a comma-separated string');
  const expected = new Set(names.filter((n) => n !== ''));
  if (expected.size === 0) bad(where, 'at least one expected tool name');
  const bar = threshold ?? 1;
  return (steps) => {
    const called = new Set(steps.filter((s) => s.type === 'tool').map((s) => s.name));
    const f1 = f1Score(called, expected);
    return { pass: f1 >= bar !== negate, score: f1 };
  };
}

/** One trajectory assertion (`base` its type without `not-`) as a scorer named `name`. */
export function compileTrajectoryAssertion(
  base: string,
  value: unknown,
  negate: boolean,
  threshold: number | undefined,
  name: string,
  where: string,
  details: Record<string, string>,
): LocalScorer {
  const rule =
    base === 'trajectory:tool-used'
      ? toolUsed(value, negate, where)
      : base === 'trajectory:tool-sequence'
        ? toolSequence(value, negate, where)
        : base === 'trajectory:tool-args-match'
          ? toolArgsMatch(value, negate, where)
          : base === 'trajectory:step-count'
            ? stepCount(value, negate, where)
            : toolCallF1(value, negate, where, threshold);
  return {
    kind: 'local',
    type: `promptfoo:${negate ? 'not-' : ''}${base}`,
    name,
    trajectory: true,
    details: { ...details, value: JSON.stringify(value ?? null) },
    score: (_answer, _sample, trajectory): Score => {
      const r = rule(trajectorySteps(trajectory ?? { calls: [], turns: 0 }));
      return { value: r.score ?? (r.pass ? 1 : 0), extracted: r.pass ? 'pass' : 'fail' };
    },
  };
}
