// Plain tables for the terminal, Markdown and CSV (RFC 4180), shared by the store commands.
import { escapeMarkdown } from '../../report/escape.js';

/** Columns padded to their widest cell; `right` lists the columns aligned right (numbers). */
export function textTable(
  header: readonly string[],
  cells: readonly (readonly string[])[],
  right: readonly number[] = [],
): string {
  // Record text may hold newlines or tabs: one line per row.
  const rows = cells.map((r) => r.map((c) => c.replace(/[\r\n\t]+/g, ' ')));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (right.includes(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n') + '\n';
}

/** A GitHub-flavoured Markdown table, every cell escaped. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map((c) => escapeMarkdown(c)).join(' | ')} |`;
  return [line(header), `| ${header.map(() => '---').join(' | ')} |`, ...rows.map(line)].join('\n') + '\n';
}

/** One CSV field: quoted when it holds a comma, quote, CR or LF (quotes doubled). */
export function csvField(value: string | number | boolean | null): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvTable(
  header: readonly string[],
  rows: readonly (readonly (string | number | boolean | null)[])[],
): string {
  return [header, ...rows].map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}
