// The tables every output uses: Markdown (reports, the leaderboard, the docs' option tables), padded plain text for
// the terminal, and CSV (RFC 4180 quoting; LF line ends, since the CLI's output streams show a carriage return as
// a visible escape).
import { escapeMarkdown } from './escape.js';

/** A GitHub-flavoured Markdown table of cells that are Markdown already (the caller escapes record text). */
export function markdownRows(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** A GitHub-flavoured Markdown table of plain text, every cell escaped, ending in a newline. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const escape = (cells: readonly string[]) => cells.map((c) => escapeMarkdown(c));
  return `${markdownRows(escape(header), rows.map(escape))}\n`;
}

/** Rows as columns padded to their widest cell ('right' for numbers), separated by two spaces, one line each. */
export function alignedColumns(
  rows: readonly (readonly string[])[],
  align: readonly ('left' | 'right')[],
): string {
  const widths = align.map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows
    .map((r) =>
      r
        .map((cell, c) => (align[c] === 'right' ? cell.padStart(widths[c]) : cell.padEnd(widths[c])))
        .join('  ')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}

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
