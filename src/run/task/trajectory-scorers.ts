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
 */
import { canonicalJson } from '../../io/canonical.js';
import type { ScorerType } from '../../formats/evalkit/task.js';
import type { LocalScorer, Score, Trajectory } from './types.js';

type Options = Record<string, unknown>;

export interface TrajectoryScorerDefinition {
  type: ScorerType;
  description: string;
  compile(options: Options): LocalScorer;
}

const binary = (ok: boolean, extracted: string): Score => ({ value: ok ? 1 : 0, extracted });

function trajectoryScorer(
  type: ScorerType,
  options: Options,
  details: Record<string, string>,
  score: (t: Trajectory) => Score,
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
    score: (_answer, _sample, trajectory) => score(trajectory ?? { calls: [], turns: 0 }),
  };
}

/** Is `wanted` a subsequence of `seen` (in order, gaps allowed)? */
function inOrder(seen: string[], wanted: string[]): boolean {
  let i = 0;
  for (const name of seen) if (i < wanted.length && name === wanted[i]) i++;
  return i === wanted.length;
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
    compile(options) {
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
    compile(options) {
      const names = (options.names as unknown[]).map(String);
      const mode = typeof options.mode === 'string' ? options.mode : 'in_order';
      return trajectoryScorer('tool_sequence', options, { names: JSON.stringify(names), mode }, (t) => {
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
    compile(options) {
      const tool = String(options.name);
      const args = options.args as Record<string, unknown>;
      const mode = typeof options.mode === 'string' ? options.mode : 'partial';
      const want = canonicalJson(args);
      const matches = (got: Record<string, unknown> | null): boolean =>
        got !== null &&
        (mode === 'exact'
          ? canonicalJson(got) === want
          : Object.entries(args).every(
              ([k, v]) => Object.hasOwn(got, k) && canonicalJson(got[k]) === canonicalJson(v),
            ));
      return trajectoryScorer('tool_args_match', options, { tool, args: want, mode }, (t) => {
        const calls = t.calls.filter((c) => c.name === tool);
        const hit = calls.find((c) => matches(c.arguments));
        return binary(hit !== undefined, hit ? canonicalJson(hit.arguments) : '');
      });
    },
  },
  {
    type: 'step_count',
    description: 'the model took at most max turns (1), else 0',
    compile(options) {
      const max = Number(options.max);
      return trajectoryScorer('step_count', options, { max: String(max) }, (t) =>
        binary(t.turns <= max, String(t.turns)),
      );
    },
  },
  {
    type: 'tool_call_f1',
    description: 'F1 of the set of tools called against the expected set',
    compile(options) {
      const expected = new Set((options.expected as unknown[]).map(String));
      return trajectoryScorer('tool_call_f1', options, { expected: JSON.stringify([...expected]) }, (t) => {
        const called = new Set(t.calls.map((c) => c.name));
        const extracted = JSON.stringify([...called]);
        if (called.size === 0 && expected.size === 0) return { value: 1, extracted };
        const hits = [...called].filter((n) => expected.has(n)).length;
        if (hits === 0) return { value: 0, extracted };
        const precision = hits / called.size;
        const recall = hits / expected.size;
        return { value: (2 * precision * recall) / (precision + recall), extracted };
      });
    },
  },
];
