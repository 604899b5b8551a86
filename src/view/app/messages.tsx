// Prompts sent as chat messages: lm-eval (and other harnesses) store a chat-template prompt as the JSON text of a
// list of {role, content}; the pages show it as the messages it is, and any other text as it is.
import { TextBlock } from './ui.js';

export interface ChatMessage {
  role: string;
  content: string;
}

/** The text of a message's content: a string, or the text parts of a list of parts ({type: 'text', text}). */
function contentText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const parts = content.map((p) =>
      typeof p === 'string'
        ? p
        : p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string'
          ? (p as { text: string }).text
          : null,
    );
    return parts.every((p) => p !== null) ? parts.join('\n') : null;
  }
  return null;
}

/** The messages a text holds when it is the JSON of a non-empty list of {role, content}; else null. */
export function chatMessages(text: string | null | undefined): ChatMessage[] | null {
  if (!text || !/^\s*\[/.test(text)) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length === 0) return null;
  const out: ChatMessage[] = [];
  for (const m of value) {
    if (!m || typeof m !== 'object' || typeof (m as { role?: unknown }).role !== 'string') return null;
    const content = contentText((m as { content?: unknown }).content);
    if (content === null) return null;
    out.push({ role: (m as { role: string }).role, content });
  }
  return out;
}

/** A prompt: its chat messages when it is a chat-template prompt, else the text. */
export function PromptBlock(props: { text: string | null | undefined; label?: string }) {
  const messages = chatMessages(props.text);
  if (messages === null) return <TextBlock text={props.text} label={props.label} />;
  return (
    <ol class="transcript prompt-messages" data-testid="messages" aria-label={props.label}>
      {messages.map((m) => (
        <li class={`message role-${m.role.replace(/[^a-z_]/gi, '')}`} data-role={m.role}>
          <div class="message-head">
            <strong>{m.role}</strong>
          </div>
          <TextBlock text={m.content} />
        </li>
      ))}
    </ol>
  );
}

/** A one-line view of a prompt for a table cell: "role: content · role: content" for chat messages. */
export function promptLine(text: string | null | undefined): string | null {
  const messages = chatMessages(text);
  return messages === null ? (text ?? null) : messages.map((m) => `${m.role}: ${m.content}`).join(' · ');
}
