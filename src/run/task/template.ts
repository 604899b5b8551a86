/**
 * Task templates: `{{field}}` is replaced by the dataset row's field (strings as they are, other values as JSON),
 * plus `{{input}}`, `{{target}}`, `{{choices}}` (a lettered list) and, in a judge's template, `{{output}}`.
 * Nothing else is evaluated; a name the row does not have is an error naming the template.
 */
import { DataError } from '../../errors.js';
import type { TaskSample } from './types.js';

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

export const choiceLetter = (i: number): string =>
  i < 26 ? String.fromCharCode(65 + i) : `${choiceLetter(Math.floor(i / 26) - 1)}${choiceLetter(i % 26)}`;

/** The choices as `A) …` lines. */
export function letteredChoices(choices: readonly string[]): string {
  return choices.map((c, i) => `${choiceLetter(i)}) ${c}`).join('\n');
}

/** The names a template uses. */
export function templateFields(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1]);
}

/** The values a template may name for a sample. */
export function templateValues(
  sample: TaskSample,
  extra: Record<string, string> = {},
): Record<string, unknown> {
  return {
    ...sample.row,
    input: sample.input,
    target: sample.targets.length === 1 ? sample.targets[0] : sample.targets.join(' | '),
    ...(sample.choices ? { choices: letteredChoices(sample.choices) } : {}),
    ...extra,
  };
}

export function renderTemplate(template: string, values: Record<string, unknown>, where: string): string {
  return template.replace(PLACEHOLDER, (_, name: string) => {
    if (!Object.hasOwn(values, name) || values[name] === undefined) {
      throw new DataError(
        'task.template-field',
        `${where}: the template names {{${name}}}, which this row does not have (fields: ${Object.keys(values).join(', ')})`,
      );
    }
    const v = values[name];
    return typeof v === 'string' ? v : JSON.stringify(v);
  });
}
