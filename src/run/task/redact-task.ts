/**
 * Keeping the run's API keys out of a task: a key that appears in a dataset row, a prompt, a var or a judge template
 * (pasted by mistake, or read from a file) is replaced by [redacted] before anything is sent, printed (--dry-run),
 * journaled or recorded. The model's answers and the providers' errors are redacted where they enter
 * (run/redact.ts); together no record or printout holds the value of a key the run uses.
 */
import { EvalkitError } from '../../errors.js';
import { createRedactor, type Redactor } from '../../io/net/redact.js';
import type { ChatMessage, JudgeScorer, Task } from './types.js';

/** Judge scorers whose prompts are already redacted. */
const wrapped = new WeakSet<JudgeScorer>();

/** A redactor of the values of these environment variables (unset or empty ones are skipped) and URL secrets. */
export function keyRedactor(
  env: NodeJS.ProcessEnv,
  names: readonly (string | undefined)[],
  more: readonly string[] = [],
): Redactor {
  const values = [...new Set(names)].flatMap((n) => (n === undefined || !env[n] ? [] : [env[n]!]));
  return createRedactor([...values, ...more]);
}

function redactValue(value: unknown, text: (s: string) => string): unknown {
  if (typeof value === 'string') return text(value);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, text));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [text(k), redactValue(v, text)]));
  return value;
}

const redactMessages = (messages: ChatMessage[], text: (s: string) => string): ChatMessage[] =>
  messages.map((m) => ({ ...m, content: text(m.content) }));

/** The task with every secret the redactor knows replaced in its texts (in place: samples, templates, rows). */
export function redactTask(task: Task, redactor: Redactor): void {
  const text = redactor.text;
  task.name = text(task.name);
  if (task.description !== undefined) task.description = text(task.description);
  if (task.system !== undefined) task.system = text(task.system);
  if (task.messages !== undefined) task.messages = redactMessages(task.messages, text);
  if (task.promptTemplate !== undefined) task.promptTemplate = text(task.promptTemplate);
  // A promptfoo sample carries its own scorers; samples are shared by the tasks of a config's providers.
  const judges = new Set(
    [...task.scorers, ...task.samples.flatMap((x) => x.scorers ?? [])].filter(
      (s): s is JudgeScorer => s.kind === 'judge' && !wrapped.has(s),
    ),
  );
  for (const s of judges) {
    wrapped.add(s);
    s.template.text = text(s.template.text);
    // What a judge is sent holds more than the template (a promptfoo rubric, filled with the test's vars).
    const prompt = s.prompt.bind(s);
    s.prompt = (answer, sample, transcript) => redactMessages(prompt(answer, sample, transcript), text);
  }
  // An agent task's tools: what the model reads of them (descriptions, table results) is sent in prompts.
  for (const tool of task.tools ?? []) {
    tool.description = text(tool.description);
    if (tool.table !== undefined)
      for (const [key, result] of tool.table.results) tool.table.results.set(key, redactValue(result, text));
  }
  for (const sample of task.samples) {
    sample.row = redactValue(sample.row, text) as typeof sample.row;
    sample.input = text(sample.input);
    sample.targets = sample.targets.map(text);
    if (sample.choices !== undefined) sample.choices = sample.choices.map(text);
    if (sample.messages !== undefined) sample.messages = redactMessages(sample.messages, text);
  }
}

/** An error with the secrets taken out of its message (same class and code). */
export function redactedError(error: unknown, redactor: Redactor): unknown {
  if (!(error instanceof EvalkitError)) return error;
  const message = redactor.text(error.message);
  if (message === error.message) return error;
  const Class = error.constructor as new (code: string, message: string) => EvalkitError;
  return new Class(error.code, message);
}
