/**
 * Escaping for untrusted record text (model responses, rationales, ids). HTML: the five characters that can
 * start markup or end an attribute. Markdown: characters that would start markup, plus raw HTML, which many
 * Markdown renderers pass through.
 */
const HTML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML[c]);
}

/** Text for a Markdown table cell or paragraph: markup characters escaped, newlines flattened. */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/[\\`*_[\]|~#]/g, (c) => `\\${c}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r?\n/g, ' ');
}

/** Shortens long text for a table, marking the cut. */
export function truncate(text: string, max = 240): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max).join('')}…`;
}
