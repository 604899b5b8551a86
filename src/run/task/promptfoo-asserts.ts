/**
 * promptfoo's assertion types that evalkit runs, registered as data. Each compiles one assertion of a test into a
 * scorer whose value is the assertion's score (1 or 0, llm-rubric's grader score) and whose `extracted` says whether
 * it passed (`pass` or `fail`); `not-X` inverts X. The test's pass is one more scorer, derived from the others by
 * promptfoo's rule: with a test threshold, the weighted mean score ≥ the threshold; else every assertion passes.
 * The trajectory assertions (promptfoo-trajectory.ts) read an agent sample's recorded tool calls.
 */
import { DataError } from '../../errors.js';
import { boundedRegExp, type BoundedRegExp } from '../../io/bounded-regex.js';
import { compileUserSchema, jsonValuesIn, parseAnswerJson } from './json-answer.js';
import { compileTrajectoryAssertion, TRAJECTORY_ASSERTIONS } from './promptfoo-trajectory.js';
import type { ChatMessage, DerivedScorer, JudgeScorer, LocalScorer, Score, TaskScorer } from './types.js';

export interface Assertion {
  type: string;
  value?: unknown;
  weight?: number;
  threshold?: number;
  provider?: unknown;
}

/** A compiled assertion: its scorer and its weight. */
export interface CompiledAssertion {
  scorer: TaskScorer;
  weight: number;
}

const verdict = (pass: boolean, score = pass ? 1 : 0): Score => ({
  value: score,
  extracted: pass ? 'pass' : 'fail',
});

const strings = (value: unknown, where: string): string[] => {
  const list = Array.isArray(value)
    ? value
    : typeof value === 'string'
      ? value.split(',').map((s) => s.trim())
      : [value];
  if (list.some((v) => typeof v !== 'string' && typeof v !== 'number'))
    throw new DataError('promptfoo.assert-value', `${where}: the value must be a list of strings`);
  return list.map(String);
};

const text = (value: unknown, where: string): string => {
  if (typeof value !== 'string' && typeof value !== 'number')
    throw new DataError('promptfoo.assert-value', `${where}: the value must be a string`);
  return String(value);
};

function schemaCheck(value: unknown, where: string): (v: unknown) => boolean {
  if (value === undefined) return () => true;
  if (typeof value !== 'object' || value === null)
    throw new DataError('promptfoo.assert-value', `${where}: the value of a JSON assertion is a JSON Schema`);
  try {
    return compileUserSchema(value);
  } catch (error) {
    throw new DataError(
      'promptfoo.json-schema',
      `${where}: not a usable JSON Schema: ${(error as Error).message}`,
    );
  }
}

type Check = (value: unknown, where: string) => (output: string) => boolean;

/** The deterministic types: whether an output passes. */
const CHECKS: Record<string, Check> = {
  equals: (value) => {
    if (typeof value === 'object' && value !== null) {
      const want = JSON.stringify(value);
      return (output) => {
        const got = parseAnswerJson(output);
        return got.ok && JSON.stringify(got.value) === want;
      };
    }
    return (output) => output === String(value);
  },
  contains: (value, where) => {
    const v = text(value, where);
    return (output) => output.includes(v);
  },
  icontains: (value, where) => {
    const v = text(value, where).toLowerCase();
    return (output) => output.toLowerCase().includes(v);
  },
  'contains-any': (value, where) => {
    const vs = strings(value, where);
    return (output) => vs.some((v) => output.includes(v));
  },
  'icontains-any': (value, where) => {
    const vs = strings(value, where).map((v) => v.toLowerCase());
    return (output) => vs.some((v) => output.toLowerCase().includes(v));
  },
  'contains-all': (value, where) => {
    const vs = strings(value, where);
    return (output) => vs.every((v) => output.includes(v));
  },
  'icontains-all': (value, where) => {
    const vs = strings(value, where).map((v) => v.toLowerCase());
    return (output) => vs.every((v) => output.toLowerCase().includes(v));
  },
  'starts-with': (value, where) => {
    const v = text(value, where);
    return (output) => output.startsWith(v);
  },
  regex: (value, where) => {
    let re: BoundedRegExp;
    try {
      re = boundedRegExp(text(value, where));
    } catch (error) {
      throw new DataError('promptfoo.bad-regex', `${where}: ${(error as Error).message}`);
    }
    return (output) => re.test(output);
  },
  'is-json': (value, where) => {
    const valid = schemaCheck(value, where);
    return (output) => {
      const got = parseAnswerJson(output);
      return got.ok && valid(got.value);
    };
  },
  'contains-json': (value, where) => {
    const valid = schemaCheck(value, where);
    return (output) => jsonValuesIn(output).some(valid);
  },
};

/** promptfoo's default llm-rubric grading prompt (the grader answers with a JSON verdict). */
export const RUBRIC_SYSTEM =
  'You are grading output according to a user-specified rubric. If the statement in the rubric is true, then the ' +
  'output passes the test. You respond with a JSON object with this structure: {reason: string; pass: boolean; ' +
  'score: number;}';

/** The grader's verdict: the last JSON object of its reply with a boolean `pass` (a score in [0, 1] optional). */
export function rubricVerdict(reply: string, threshold: number | undefined, negate: boolean): Score {
  const found = jsonValuesIn(reply)
    .filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v))
    .filter((v) => typeof v.pass === 'boolean')
    .at(-1);
  if (found === undefined)
    return { value: null, error: 'the grader\'s reply has no JSON object with a boolean "pass"' };
  let score =
    typeof found.score === 'number' && found.score >= 0 && found.score <= 1
      ? found.score
      : found.pass
        ? 1
        : 0;
  let pass = found.pass as boolean;
  if (threshold !== undefined) pass = pass && score >= threshold;
  if (negate) {
    pass = !pass;
    score = 1 - score;
  }
  return verdict(pass, score);
}

/** The types evalkit runs (each also as `not-X`); the trajectory ones need a provider with tools. */
export const SUPPORTED_ASSERTIONS = [...Object.keys(CHECKS), 'llm-rubric', ...TRAJECTORY_ASSERTIONS];

export const isTrajectoryAssertion = (type: string): boolean =>
  TRAJECTORY_ASSERTIONS.includes(type.replace(/^not-/, ''));

/** A value with the test's vars filled into each string of it (promptfoo renders a structured value too). */
const renderDeep = (value: unknown, render: (s: string) => string): unknown =>
  typeof value === 'string'
    ? render(value)
    : Array.isArray(value)
      ? value.map((v) => renderDeep(v, render))
      : typeof value === 'object' && value !== null
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderDeep(v, render)]))
        : value;

export const isSupported = (type: string): boolean =>
  SUPPORTED_ASSERTIONS.includes(type.replace(/^not-/, ''));

/**
 * One assertion as a scorer named `name` (its type; `type#k` for the k-th of a type in one test). `render` fills
 * the test's vars into a string value; `where` names the test for messages.
 */
export function compileAssertion(
  a: Assertion,
  name: string,
  render: (s: string) => string,
  where: string,
): CompiledAssertion {
  const negate = a.type.startsWith('not-');
  const base = a.type.replace(/^not-/, '');
  const value = typeof a.value === 'string' ? render(a.value) : a.value;
  const weight = a.weight ?? 1;
  const details: Record<string, string> = { assertion: a.type };
  if (TRAJECTORY_ASSERTIONS.includes(base)) {
    const scorer = compileTrajectoryAssertion(
      base,
      renderDeep(a.value, render),
      negate,
      a.threshold,
      name,
      where,
      details,
    );
    return { scorer, weight };
  }
  if (base === 'llm-rubric') {
    const rubric = text(value, where);
    const scorer: JudgeScorer = {
      kind: 'judge',
      type: 'model_graded',
      name,
      judge: {},
      template: { text: RUBRIC_SYSTEM, source: 'promptfoo:llm-rubric' },
      grades: {},
      details,
      prompt: (answer): ChatMessage[] => [
        { role: 'system', content: RUBRIC_SYSTEM },
        { role: 'user', content: `<Output>\n${answer}\n</Output>\n<Rubric>\n${rubric}\n</Rubric>` },
      ],
      grade: (reply) => rubricVerdict(reply, a.threshold, negate),
    };
    return { scorer, weight };
  }
  const passes = CHECKS[base](value, where);
  const scorer: LocalScorer = {
    kind: 'local',
    type: `promptfoo:${a.type}`,
    name,
    details,
    score: (answer) => verdict(passes(answer) !== negate),
  };
  return { scorer, weight };
}

/** The test's pass (1 or 0) by promptfoo's rule; no value while an assertion has none (a grader failed). */
export function passScorer(assertions: CompiledAssertion[], given: number | undefined): DerivedScorer {
  // promptfoo reads a threshold of 0 as none; a test without assertions passes.
  const threshold = given === 0 || assertions.length === 0 ? undefined : given;
  return {
    kind: 'derived',
    type: 'promptfoo:pass',
    name: 'pass',
    details:
      threshold === undefined
        ? { rule: 'every assertion passes' }
        : { rule: 'weighted score ≥ threshold', threshold: String(threshold) },
    derive(scores) {
      const got = assertions.map((a) => ({ ...a, score: scores[a.scorer.name] }));
      const missing = got.find((g) => g.score?.value === null || g.score === undefined);
      if (missing) return { value: null, error: `assertion "${missing.scorer.name}" has no result` };
      if (threshold !== undefined) {
        const total = got.reduce((s, g) => s + g.weight, 0);
        const weighted = total > 0 ? got.reduce((s, g) => s + g.weight * g.score!.value!, 0) / total : 0;
        return verdict(weighted >= threshold);
      }
      return verdict(got.every((g) => g.score!.extracted === 'pass'));
    },
  };
}
