/**
 * The messages a sample sends: the task's `messages` (or the default single user message), each a template, after
 * the optional system message. With choices and no `messages`, the default prompt lists them and asks for a letter.
 */
import { renderTemplate, templateValues } from './template.js';
import type { ChatMessage, Task, TaskSample } from './types.js';

export const DEFAULT_USER_TEMPLATE = '{{input}}';
export const DEFAULT_CHOICE_TEMPLATE =
  '{{input}}\n\n{{choices}}\n\nAnswer with the letter of the correct choice.';

export function buildMessages(task: Pick<Task, 'system' | 'messages'>, sample: TaskSample): ChatMessage[] {
  if (sample.messages !== undefined) return sample.messages;
  const values = templateValues(sample);
  const messages: ChatMessage[] = [];
  if (task.system !== undefined)
    messages.push({
      role: 'system',
      content: renderTemplate(task.system, values, `${sample.where} (system)`),
    });
  const templates = task.messages ?? [
    { role: 'user' as const, content: sample.choices ? DEFAULT_CHOICE_TEMPLATE : DEFAULT_USER_TEMPLATE },
  ];
  templates.forEach((m, i) =>
    messages.push({
      role: m.role,
      content: renderTemplate(m.content, values, `${sample.where} (messages[${i}])`),
    }),
  );
  return messages;
}

/** The prompt as EEE's `input.raw` holds it: the last user message. */
export function promptText(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user') return messages[i].content;
  return messages.at(-1)?.content ?? '';
}
