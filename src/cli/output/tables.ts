// Plain tables for the terminal, Markdown and CSV (RFC 4180 quoting; LF line ends, since the CLI's output streams
// show a carriage return as a visible escape, see terminal-text.ts), for the leaderboard.
import { escapeMarkdown } from '../../report/escape.js';
import { alignedColumns } from './table.js';

/** Columns padded to their widest cell under a dashed rule; `right` lists the columns aligned right (numbers). */
export function textTable(
  header: readonly string[],
  cells: readonly (readonly string[])[],
  right: readonly number[] = [],
): string {
  // Record text may hold newlines or tabs: one line per row.
  const rows = cells.map((r) => r.map((c) => c.replace(/[\r\n\t]+/g, ' ')));
  const rule = header.map((h, i) => '-'.repeat(Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length))));
  const align = header.map((_, i): 'left' | 'right' => (right.includes(i) ? 'right' : 'left'));
  return alignedColumns([[...header], rule, ...rows], align);
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
  return [header, ...rows].map((r) => r.map(csvField).join(',')).join('\n') + '\n';
}
