/** Plain-text tables for the terminal. */

/** Rows as columns padded to their widest cell ('right' for numbers), separated by two spaces. */
export function alignedColumns(rows: string[][], align: ('left' | 'right')[]): string {
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
