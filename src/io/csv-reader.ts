/**
 * Reading CSV (RFC 4180) as survey platforms export it: comma-separated, fields optionally in double quotes with
 * `""` for a quote inside, quoted fields may hold commas and line breaks; records end with CRLF, LF or CR; a UTF-8
 * byte-order mark is dropped; the last record may lack its line break. Each record carries the line it starts on,
 * so errors can name `file:line`. Bytes that are not UTF-8 are refused (a spreadsheet saved as Windows-1252 would
 * otherwise turn "—" into mojibake silently).
 */
import { DataError } from '../errors.js';
import { decodeUtf8 } from './utf8.js';

export interface CsvRecord {
  /** The fields, unquoted. */
  fields: string[];
  /** 1-based line of the file where the record starts. */
  line: number;
}

/**
 * Decodes UTF-8 bytes by the rule of utf8.ts (BOM dropped); invalid UTF-8 is a DataError `csv.not-utf8` naming
 * file:line:column.
 */
export function decodeCsvBytes(bytes: Uint8Array, file: string): string {
  return decodeUtf8(bytes, file, 'csv.not-utf8');
}

/**
 * Splits CSV text into records. A quote that is never closed, or text between a closing quote and the next
 * separator, is a DataError (`csv.unterminated-quote`, `csv.bad-quote`) naming `file:line:column`.
 */
export function parseCsv(text: string, file: string): CsvRecord[] {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  const n = body.length;
  let i = 0;
  let line = 1;
  let lineStart = 0;
  let fields: string[] = [];
  let recordLine = 1;
  let field = '';
  const endRecord = (): void => {
    fields.push(field);
    records.push({ fields, line: recordLine });
    fields = [];
    field = '';
  };
  const newline = (at: number): number => {
    // at points at \r or \n; returns the index after the line break
    const next = body.charCodeAt(at) === 13 && body.charCodeAt(at + 1) === 10 ? at + 2 : at + 1;
    line++;
    lineStart = next;
    return next;
  };
  while (i < n) {
    // start of a field
    if (body.charCodeAt(i) === 34) {
      const openLine = line;
      const openColumn = i - lineStart + 1;
      i++;
      for (;;) {
        if (i >= n)
          throw new DataError(
            'csv.unterminated-quote',
            `${file}:${openLine}:${openColumn}: a quoted field is never closed`,
          );
        const c = body.charCodeAt(i);
        if (c === 34) {
          if (body.charCodeAt(i + 1) === 34) {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (c === 13 || c === 10) {
          const next = newline(i);
          field += body.slice(i, next);
          i = next;
          continue;
        }
        // copy a run of ordinary characters at once
        let j = i + 1;
        while (j < n) {
          const d = body.charCodeAt(j);
          if (d === 34 || d === 13 || d === 10) break;
          j++;
        }
        field += body.slice(i, j);
        i = j;
      }
      if (i < n) {
        const c = body.charCodeAt(i);
        if (c !== 44 && c !== 13 && c !== 10)
          throw new DataError(
            'csv.bad-quote',
            `${file}:${line}:${i - lineStart + 1}: text after the closing quote of a field (a quote inside a quoted field is written "")`,
          );
      }
    } else {
      let j = i;
      while (j < n) {
        const d = body.charCodeAt(j);
        if (d === 44 || d === 13 || d === 10) break;
        j++;
      }
      field = body.slice(i, j);
      i = j;
    }
    if (i >= n) {
      endRecord();
      break;
    }
    const c = body.charCodeAt(i);
    if (c === 44) {
      fields.push(field);
      field = '';
      i++;
      if (i >= n) {
        endRecord();
        break;
      }
      continue;
    }
    // a line break ends the record
    endRecord();
    i = newline(i);
    recordLine = line;
  }
  return records;
}
