/** One finding about one value of one document. Every validator and check returns these. */
export type Severity = 'error' | 'warning';

export interface Diagnostic {
  /** Path of the file as given by the user ("-" for standard input). */
  file: string;
  /** 1-based line and column of the value the diagnostic is about (0 when unknown). */
  line: number;
  column: number;
  /** RFC 6901 JSON pointer to the value inside its document ("" for the whole document). */
  pointer: string;
  severity: Severity;
  /** Stable identifier, e.g. "schema.required", "json.duplicate-key", "eee.checksum". */
  code: string;
  message: string;
  /** Document type and version the document was validated as, when known. */
  type?: string;
  schema_version?: string;
}

export function formatDiagnosticText(d: Diagnostic): string {
  const where = d.pointer ? ` (at ${d.pointer || '/'})` : '';
  return `${d.file}:${d.line}:${d.column} ${d.severity} ${d.code} ${d.message}${where}`;
}
