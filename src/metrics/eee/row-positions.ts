/**
 * Columns for diagnostics about rows of a JSONL file that were made without the rows' text (line known, column 1):
 * one streamed read of the file, and only the lines that have a diagnostic are looked at. Used when the rows were
 * read as values only, so that their text need not be kept for the (rare) rows with a problem.
 */
import type { Diagnostic } from '../../diagnostics.js';
import { readJsonlFile } from '../../io/jsonl.js';
import { locatePointers } from '../../io/strict-json.js';

/** Sets the column of each diagnostic about `file` (at its line) to where its pointer lies; others are untouched. */
export async function locateRowDiagnostics(
  path: string,
  file: string,
  diagnostics: Diagnostic[],
): Promise<void> {
  const byLine = new Map<number, Diagnostic[]>();
  for (const d of diagnostics) {
    if (d.file !== file || d.line < 1) continue;
    const list = byLine.get(d.line) ?? [];
    list.push(d);
    byLine.set(d.line, list);
  }
  if (byLine.size === 0) return;
  for await (const batch of readJsonlFile(path)) {
    for (const { line, bytes, tooLong } of batch) {
      const here = byLine.get(line);
      if (!here || tooLong) continue;
      const at = locatePointers(
        bytes.toString('utf8'),
        here.map((d) => d.pointer),
      );
      for (const d of here) d.column = at.get(d.pointer)?.column ?? d.column;
    }
  }
}
