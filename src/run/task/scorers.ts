/**
 * The scorers of a task, registered as data: each type compiles its options (from the task file) into a scorer.
 * Local scorers are pure functions of the answer and the sample; `model_graded` builds a judge prompt and reads the
 * judge's reply (the engine sends it). A value is 0–1.
 */
import { readFileSync } from 'node:fs';
import { confinedPath } from '../../io/confined-path.js';
import { assertRegularFileSync } from '../../io/regular-file.js';
import { DataError, IoError } from '../../errors.js';
import { boundedRegExp, type BoundedRegExp } from '../../io/bounded-regex.js';
import { compileUserSchema, parseAnswerJson } from './json-answer.js';
import type { ScorerType } from '../../formats/evalkit/task.js';
import { choiceLetter, renderTemplate, templateValues } from './template.js';
import { TRAJECTORY_SCORERS } from './trajectory-scorers.js';
import type {
  ChatMessage,
  JudgeScorer,
  JudgeSpec,
  LocalScorer,
  Score,
  TaskSample,
  TaskScorer,
} from './types.js';

type Options = Record<string, unknown>;

export interface ScorerContext {
  /** The task file's folder: scorer files are relative to it. */
  dir: string;
  /** Where the scorer is written (`task.yaml` and a JSON pointer), for messages. */
  where: string;
}

export interface ScorerDefinition {
  type: ScorerType;
  description: string;
  compile(options: Options, context: ScorerContext): TaskScorer;
  /** A reason this scorer cannot score the sample (a target that is no number for `numeric`), checked before any call. */
  check?(sample: TaskSample, options: Options): string | undefined;
}

/** Trim, lower-case, collapse white space, drop surrounding punctuation. */
export function normalizeAnswer(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/^[\s\p{P}]+|[\s\p{P}]+$/gu, '');
}

const norm = (on: boolean) => (s: string) => (on ? normalizeAnswer(s) : s);
const binary = (ok: boolean, extracted?: string): Score =>
  extracted === undefined ? { value: ok ? 1 : 0 } : { value: ok ? 1 : 0, extracted };

const NUMBER = /[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][-+]?\d+)?/g;

/** The numbers in a text, in order (thousands separators allowed). */
export function numbersIn(text: string): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(NUMBER)) {
    if (!/\d/.test(m[0])) continue;
    const n = Number(m[0].replace(/,/g, ''));
    if (Number.isFinite(n)) out.push(n);
  }
  return out;
}

/** A target as a number, or undefined. */
function targetNumber(target: string): number | undefined {
  const t = target.trim().replace(/,/g, '');
  if (t === '') return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

/** The last standalone capital letter among `letters` (`B`, `(B)`, `ANSWER: B`, `The answer is B.`). */
export function choiceIn(answer: string, letters: readonly string[]): string | undefined {
  let found: string | undefined;
  for (const m of answer.matchAll(/(?<![A-Za-z0-9])([A-Z])(?![A-Za-z0-9])/g))
    if (letters.includes(m[1])) found = m[1];
  return found;
}

/** The letter a target names: a letter of the choices, or the text of one choice. */
function targetLetter(target: string, choices: readonly string[]): string | undefined {
  const t = target.trim();
  const letters = choices.map((_, i) => choiceLetter(i));
  if (letters.includes(t.toUpperCase()) && t.length <= 2) return t.toUpperCase();
  const i = choices.findIndex((c) => normalizeAnswer(c) === normalizeAnswer(t));
  return i >= 0 ? letters[i] : undefined;
}

/**
 * Where the first fenced block (```json or ```) of a text is: the same as /```(?:json)?[ \t]*\r?\n?([\s\S]*?)```/i,
 * found with indexOf (an opening without a closing fence after it means no later one has one either).
 */
function fencedBlock(text: string): string | undefined {
  const open = text.indexOf('```');
  if (open < 0) return undefined;
  let start = open + 3;
  if (text.slice(start, start + 4).toLowerCase() === 'json') start += 4;
  while (text[start] === ' ' || text[start] === '\t') start++;
  if (text[start] === '\r') start++;
  if (text[start] === '\n') start++;
  const close = text.indexOf('```', start);
  return close < 0 ? undefined : text.slice(start, close);
}

/**
 * The JSON an answer holds: the first fenced block (```json or ```) if there is one, else the trimmed answer. JSON
 * nested deeper than the project's limit throws a DataError (`run.json-depth`): a scorer error for the sample.
 */
export function jsonIn(answer: string): { ok: true; value: unknown } | { ok: false } {
  return parseAnswerJson((fencedBlock(answer) ?? answer).trim());
}

export const DEFAULT_GRADES: Record<string, number> = { C: 1, P: 0.5, I: 0 };

export function defaultJudgeTemplate(grades: Record<string, number>): string {
  const keys = Object.keys(grades);
  return [
    'You are grading a submitted answer against a reference answer.',
    '',
    '[Question]',
    '{{input}}',
    '',
    '[Reference answer]',
    '{{target}}',
    '',
    '[Submitted answer]',
    '{{output}}',
    '',
    `Grade the submitted answer. End your reply with one line "GRADE: X", X one of ${keys.join(', ')}` +
      (keys.join() === 'C,P,I' ? ' (C correct, P partially correct, I incorrect).' : '.'),
  ].join('\n');
}

/** The last `GRADE: X` of a judge's reply whose X is a key of `grades`. */
export function gradeOf(reply: string, grades: Record<string, number>): Score {
  let last: string | undefined;
  for (const m of reply.matchAll(/GRADE\s*:\s*\**\s*([A-Za-z0-9_]+)/g))
    if (Object.hasOwn(grades, m[1])) last = m[1];
  if (last === undefined)
    return {
      value: null,
      error: `the judge's reply has no "GRADE: X" with X one of ${Object.keys(grades).join(', ')}`,
    };
  return { value: grades[last], extracted: last };
}

const nameOf = (options: Options, type: ScorerType): string =>
  typeof options.name === 'string' ? options.name : type;

function local(
  type: ScorerType,
  options: Options,
  details: Record<string, string>,
  score: (answer: string, sample: TaskSample) => Score,
): LocalScorer {
  return { kind: 'local', type, name: nameOf(options, type), score, details };
}

function readTaskFile(path: string, context: ScorerContext, what: string): string {
  const full = confinedPath(context.dir, path, `${context.where}: the ${what}`, 'task.file-outside');
  try {
    assertRegularFileSync(full);
    return readFileSync(full, 'utf8');
  } catch (error) {
    throw new DataError(
      'task.file',
      `${context.where}: cannot read the ${what} ${full}: ${error instanceof IoError ? error.message.replace(/^cannot read [^:]*: /, '') : ((error as NodeJS.ErrnoException).code ?? (error as Error).message)}`,
    );
  }
}

export const SCORERS: readonly ScorerDefinition[] = [
  {
    type: 'match',
    description:
      'exact match after normalising (trim, case, surrounding punctuation); normalize: false turns it off',
    compile(options) {
      const n = norm(options.normalize !== false);
      return local('match', options, { normalize: String(options.normalize !== false) }, (answer, s) =>
        binary(s.targets.some((t) => n(t) === n(answer))),
      );
    },
  },
  {
    type: 'includes',
    description: 'the target occurs in the answer (normalised)',
    compile(options) {
      const n = norm(options.normalize !== false);
      return local('includes', options, { normalize: String(options.normalize !== false) }, (answer, s) =>
        binary(s.targets.some((t) => n(answer).includes(n(t)))),
      );
    },
  },
  {
    type: 'pattern',
    description:
      "the regular expression's first capture group (else the whole match) matched against the target",
    compile(options, context) {
      let re: BoundedRegExp;
      try {
        re = boundedRegExp(String(options.regex), typeof options.flags === 'string' ? options.flags : '');
      } catch (error) {
        throw new DataError('task.bad-regex', `${context.where}: ${(error as Error).message}`);
      }
      const n = norm(options.normalize !== false);
      return local(
        'pattern',
        options,
        { regex: re.source, ...(re.flags ? { flags: re.flags } : {}) },
        (answer, s) => {
          const m = re.exec(answer);
          if (m === null) return { value: 0, extracted: '' };
          const got = m[1] ?? m[0];
          return binary(
            s.targets.some((t) => n(t) === n(got)),
            got,
          );
        },
      );
    },
  },
  {
    type: 'numeric',
    description:
      'the last number in the answer against the target, within the tolerance (absolute, or relative)',
    check: (sample) =>
      sample.targets.every((t) => targetNumber(t) === undefined)
        ? `the target ${JSON.stringify(sample.targets[0] ?? '')} is not a number`
        : undefined,
    compile(options) {
      const tolerance = typeof options.tolerance === 'number' ? options.tolerance : 0;
      const relative = options.relative === true;
      return local(
        'numeric',
        options,
        { tolerance: String(tolerance), relative: String(relative) },
        (answer, s) => {
          const got = numbersIn(answer).at(-1);
          if (got === undefined) return { value: 0, extracted: '' };
          const ok = s.targets.some((t) => {
            const want = targetNumber(t);
            if (want === undefined) return false;
            const allowed = relative ? tolerance * Math.abs(want) : tolerance;
            return Math.abs(got - want) <= allowed + 1e-12 * Math.max(1, Math.abs(want));
          });
          return binary(ok, String(got));
        },
      );
    },
  },
  {
    type: 'choice',
    description:
      "multiple choice: the answer's last standalone choice letter against the target (a letter or the right choice's text)",
    check(sample) {
      if (!sample.choices || sample.choices.length === 0)
        return 'the choice scorer needs choices (dataset.choices)';
      if (sample.targets.some((t) => targetLetter(t, sample.choices!) === undefined))
        return `the target ${JSON.stringify(sample.targets[0])} is neither a choice letter nor the text of a choice`;
      return undefined;
    },
    compile(options) {
      return local('choice', options, {}, (answer, s) => {
        const choices = s.choices ?? [];
        const got = choiceIn(
          answer,
          choices.map((_, i) => choiceLetter(i)),
        );
        const wanted = s.targets.map((t) => targetLetter(t, choices));
        return binary(got !== undefined && wanted.includes(got), got ?? '');
      });
    },
  },
  {
    type: 'json',
    description:
      'the answer is JSON (the first fenced block, else the whole answer) valid against the schema',
    compile(options, context) {
      let validate: ((v: unknown) => boolean) | undefined;
      const details: Record<string, string> = {};
      if (typeof options.schema === 'string') {
        const text = readTaskFile(options.schema, context, 'JSON Schema');
        let schema: unknown;
        try {
          schema = JSON.parse(text);
        } catch (error) {
          throw new DataError(
            'task.json-schema',
            `${context.where}: ${options.schema} is not JSON: ${(error as Error).message}`,
          );
        }
        try {
          validate = compileUserSchema(schema as object);
        } catch (error) {
          throw new DataError(
            'task.json-schema',
            `${context.where}: ${options.schema} is not a usable JSON Schema: ${(error as Error).message}`,
          );
        }
        details.schema = options.schema;
      }
      return local('json', options, details, (answer) => {
        const parsed = jsonIn(answer);
        if (!parsed.ok) return { value: 0, extracted: '' };
        return binary(validate === undefined || validate(parsed.value), JSON.stringify(parsed.value));
      });
    },
  },
  {
    type: 'model_graded',
    description: 'a judge model grades the answer; its last "GRADE: X" is looked up in grades',
    compile(options, context): JudgeScorer {
      const grades = (options.grades as Record<string, number> | undefined) ?? DEFAULT_GRADES;
      const template =
        typeof options.template === 'string'
          ? { text: readTaskFile(options.template, context, 'judge template'), source: options.template }
          : { text: defaultJudgeTemplate(grades), source: 'builtin:default-grader' };
      const j = (options.judge ?? {}) as Record<string, unknown>;
      const judge: JudgeSpec = {
        ...(typeof j.provider === 'string' ? { provider: j.provider as JudgeSpec['provider'] } : {}),
        ...(typeof j.model === 'string' ? { model: j.model } : {}),
        ...(j.base_url !== undefined ? { baseUrl: j.base_url as string | null } : {}),
        ...(typeof j.api_key_env === 'string' ? { apiKeyEnv: j.api_key_env } : {}),
      };
      return {
        kind: 'judge',
        type: 'model_graded',
        name: nameOf(options, 'model_graded'),
        judge,
        template,
        grades,
        details: { template: template.source, grades: JSON.stringify(grades) },
        prompt(answer: string, sample: TaskSample, transcript?: string): ChatMessage[] {
          const content = renderTemplate(
            template.text,
            templateValues(sample, { output: answer, ...(transcript !== undefined ? { transcript } : {}) }),
            `${sample.where} (judge template ${template.source})`,
          );
          return [{ role: 'user', content }];
        },
        grade: (reply: string) => gradeOf(reply, grades),
      };
    },
  },
  // An agent task's trajectory scorers read the recorded tool calls (trajectory-scorers.ts).
  ...TRAJECTORY_SCORERS,
];

export function scorerDefinition(type: string): ScorerDefinition | undefined {
  return SCORERS.find((s) => s.type === type);
}
