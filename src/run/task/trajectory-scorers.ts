/**
 * Trajectory scorers: pure functions of an agent sample's recorded tool calls (read back from the messages the row
 * holds), registered as data beside the answer scorers. Each value is 0–1.
 *
 * - tool_used {name, min = 1, max}: 1 when the tool was called between min and max times;
 * - tool_sequence {names, mode}: exact — the calls are exactly these names in this order; in_order (default) —
 *   they occur in this order, other calls between them allowed; any_order — each occurs (as often as listed);
 * - tool_args_match {name, args, mode}: 1 when some call of the tool has these arguments — exact: equal as JSON
 *   values (key order aside); partial (default): each listed argument equal, others allowed;
 * - step_count {max}: 1 when the model took at most max turns, else 0;
 * - tool_call_f1 {expected}: F1 of the set of tools called against the expected set (promptfoo's rule: names,
 *   each counted once); no calls with nothing expected is 1.
 *
 * Without `names` / `expected`, each sample's own expectation is read from its row's `expected_tools` (a list of
 * names); without `args`, from its row's `expected_args` (an object); a row without it is refused before any call.
 */
import { DataError } from '../../errors.js';
import { canonicalJson } from '../../io/canonical.js';
import type { ScorerType } from '../../formats/evalkit/task.js';
import type { LocalScorer, Score, TaskSample, Trajectory } from './types.js';

type Options = Record<string, unknown>;

export interface TrajectoryScorerDefinition {
  type: ScorerType;
  description: string;
  compile(options: Options, context: { where: string }): LocalScorer;
  check?(sample: TaskSample, options: Options): string | undefined;
}

export const EXPECTED_TOOLS_FIELD = 'expected_tools';
export const EXPECTED_ARGS_FIELD = 'expected_args';

/** The option's names, else the row's expected_tools. */
const namesFrom = (given: unknown, sample: TaskSample): string[] =>
  Array.isArray(given) ? given.map(String) : (sample.row[EXPECTED_TOOLS_FIELD] as unknown[]).map(String);

const checkNames =
  (key: string) =>
  (sample: TaskSample, options: Options): string | undefined => {
    if (options[key] !== undefined) return undefined;
    const v = sample.row[EXPECTED_TOOLS_FIELD];
    return Array.isArray(v) && v.every((x) => typeof x === 'string')
      ? undefined
      : `the row has no "${EXPECTED_TOOLS_FIELD}" list of tool names (and the scorer no ${key})`;
  };

const binary = (ok: boolean, extracted: string): Score => ({ value: ok ? 1 : 0, extracted });

function trajectoryScorer(
  type: ScorerType,
  options: Options,
  details: Record<string, string>,
  score: (t: Trajectory, sample: TaskSample) => Score,
): LocalScorer {
  // tool_used and tool_args_match name their tool with `name`; their metric name is `metric`.
  const metric =
    type === 'tool_used' || type === 'tool_args_match' ? options.metric : (options.name ?? options.metric);
  return {
    kind: 'local',
    type,
    name: typeof metric === 'string' ? metric : type,
    trajectory: true,
    details,
    score: (_answer, sample, trajectory) => score(trajectory ?? { calls: [], turns: 0 }, sample),
  };
}

/** A scorer written without the option it cannot do without (`- tool_used` instead of `- {tool_used: {name: …}}`). */
function need(options: Options, key: string, type: string, context: { where: string }): void {
  if (options[key] === undefined)
    throw new DataError(
      'task.scorer-options',
      `${context.where} error task.scorer-options the ${type} scorer needs ${key}: write {${type}: {${key}: …}}`,
    );
}

/** Is `wanted` a subsequence of `seen` (in order, gaps allowed; each wanted taken by its first fit)? */
export function inOrder<S, W>(
  seen: readonly S[],
  wanted: readonly W[],
  fits: (s: S, w: W) => boolean = (s, w) => (s as unknown) === w,
): boolean {
  let i = 0;
  for (const s of seen) if (i < wanted.length && fits(s, wanted[i])) i++;
  return i === wanted.length;
}

/** F1 of a set of called names against an expected set (0 when they share none). */
export function f1Score(called: ReadonlySet<string>, expected: ReadonlySet<string>): number {
  const hits = [...called].filter((n) => expected.has(n)).length;
  if (hits === 0) return 0;
  const precision = hits / called.size;
  const recall = hits / expected.size;
  return (2 * precision * recall) / (precision + recall);
}

/** Does `seen` hold every name of `wanted`, each as often as listed? */
function anyOrder(seen: string[], wanted: string[]): boolean {
  const counts = new Map<string, number>();
  for (const n of seen) counts.set(n, (counts.get(n) ?? 0) + 1);
  for (const n of wanted) {
    const c = counts.get(n) ?? 0;
    if (c === 0) return false;
    counts.set(n, c - 1);
  }
  return true;
}

export const TRAJECTORY_SCORERS: readonly TrajectoryScorerDefinition[] = [
  {
    type: 'tool_used',
    description: 'the tool was called between min (default 1) and max times',
    compile(options, context) {
      need(options, 'name', 'tool_used', context);
      const tool = String(options.name);
      const min = typeof options.min === 'number' ? options.min : 1;
      const max = typeof options.max === 'number' ? options.max : undefined;
      return trajectoryScorer(
        'tool_used',
        options,
        { tool, min: String(min), ...(max !== undefined ? { max: String(max) } : {}) },
        (t) => {
          const n = t.calls.filter((c) => c.name === tool).length;
          return binary(n >= min && (max === undefined || n <= max), String(n));
        },
      );
    },
  },
  {
    type: 'tool_sequence',
    description: 'the tools were called in this sequence (exact, in_order or any_order)',
    check: checkNames('names'),
    compile(options) {
      const mode = typeof options.mode === 'string' ? options.mode : 'in_order';
      const given = options.names === undefined ? EXPECTED_TOOLS_FIELD : JSON.stringify(options.names);
      return trajectoryScorer('tool_sequence', options, { names: given, mode }, (t, sample) => {
        const names = namesFrom(options.names, sample);
        const seen = t.calls.map((c) => c.name);
        const ok =
          mode === 'exact'
            ? seen.length === names.length && seen.every((n, i) => n === names[i])
            : mode === 'any_order'
              ? anyOrder(seen, names)
              : inOrder(seen, names);
        return binary(ok, JSON.stringify(seen));
      });
    },
  },
  {
    type: 'tool_args_match',
    description: 'some call of the tool has these arguments (exact, or partial: these among others)',
    check(sample, options) {
      if (options.args !== undefined) return undefined;
      const v = sample.row[EXPECTED_ARGS_FIELD];
      return typeof v === 'object' && v !== null && !Array.isArray(v)
        ? undefined
        : `the row has no "${EXPECTED_ARGS_FIELD}" object (and the scorer no args)`;
    },
    compile(options, context) {
      need(options, 'name', 'tool_args_match', context);
      const tool = String(options.name);
      const mode = typeof options.mode === 'string' ? options.mode : 'partial';
      const given = options.args === undefined ? EXPECTED_ARGS_FIELD : canonicalJson(options.args);
      return trajectoryScorer('tool_args_match', options, { tool, args: given, mode }, (t, sample) => {
        const args = (options.args ?? sample.row[EXPECTED_ARGS_FIELD]) as Record<string, unknown>;
        const want = canonicalJson(args);
        const matches = (got: Record<string, unknown> | null): boolean =>
          got !== null &&
          (mode === 'exact'
            ? canonicalJson(got) === want
            : Object.entries(args).every(
                ([k, v]) => Object.hasOwn(got, k) && canonicalJson(got[k]) === canonicalJson(v),
              ));
        const calls = t.calls.filter((c) => c.name === tool);
        const hit = calls.find((c) => matches(c.arguments));
        return binary(hit !== undefined, hit ? canonicalJson(hit.arguments) : '');
      });
    },
  },
  {
    type: 'step_count',
    description: 'the model took at most max turns (1), else 0',
    compile(options, context) {
      need(options, 'max', 'step_count', context);
      const max = Number(options.max);
      return trajectoryScorer('step_count', options, { max: String(max) }, (t) =>
        binary(t.turns <= max, String(t.turns)),
      );
    },
  },
  {
    type: 'tool_call_f1',
    description: 'F1 of the set of tools called against the expected set',
    check: checkNames('expected'),
    compile(options) {
      const given = options.expected === undefined ? EXPECTED_TOOLS_FIELD : JSON.stringify(options.expected);
      return trajectoryScorer('tool_call_f1', options, { expected: given }, (t, sample) => {
        const expected = new Set(namesFrom(options.expected, sample));
        const called = new Set(t.calls.map((c) => c.name));
        const extracted = JSON.stringify([...called]);
        if (called.size === 0 && expected.size === 0) return { value: 1, extracted };
        return { value: f1Score(called, expected), extracted };
      });
    },
  },
];
