/**
 * A converted record's instance rows as the store reads them: each row's JSONL text (what `evalkit convert` writes
 * for it, byte for byte, so the checksum is the same) with the row itself. Where the source serialises its rows
 * itself (`rowBlocks`), the text is taken from there and parsed (JSON.parse needs no deep stack, so a row holding a
 * deeply nested source document as text is read whole); otherwise the source's row objects are serialised here.
 */
import type { ConvertedRecord } from '../convert/index.js';
import { UniqueSampleIds } from '../convert/write.js';

export interface ConvertedRow {
  /** The row's JSONL line, without its newline. */
  text: string;
  row: Record<string, unknown>;
}

export async function* convertedRows(record: ConvertedRecord): AsyncGenerator<ConvertedRow> {
  // Repeated sample ids are renamed as `evalkit convert` writes them (ID#2, ID#3, … in row order).
  const ids = new UniqueSampleIds();
  if (record.rowBlocks) {
    for await (const block of record.rowBlocks()) {
      const text = ids.block(block.bytes).toString('utf8');
      let start = 0;
      for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
        const line = text.slice(start, end);
        start = end + 1;
        if (line !== '') yield { text: line, row: JSON.parse(line) as Record<string, unknown> };
      }
      const rest = text.slice(start);
      if (rest !== '') yield { text: rest, row: JSON.parse(rest) as Record<string, unknown> };
    }
    return;
  }
  if (!record.rows) return;
  for await (const row of record.rows()) {
    if (typeof row.sample_id === 'string') row.sample_id = ids.next(row.sample_id);
    yield { text: JSON.stringify(row), row };
  }
}

/** Whether the record has instance rows at all. */
export const hasConvertedRows = (record: ConvertedRecord): boolean =>
  record.rowBlocks !== undefined || record.rows !== undefined;
