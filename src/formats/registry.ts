import { benchOutputTypes } from './bench-output/index.js';
import { eeeTypes } from './eee/index.js';
import { evalkitTypes } from './evalkit/index.js';
import { inferevalTypes } from './infereval/index.js';
import { retrievalTypes } from './retrieval/index.js';
import type { DocumentType, FormatVersion } from './types.js';

/** Every document type evalkit knows. Adding a family means one line here. */
export const documentTypes: readonly DocumentType[] = [
  ...eeeTypes,
  ...inferevalTypes,
  ...retrievalTypes,
  ...benchOutputTypes,
  ...evalkitTypes,
];

export function findType(id: string): DocumentType | undefined {
  return documentTypes.find((t) => t.id === id);
}

export function findVersion(type: DocumentType, version: string): FormatVersion | undefined {
  return type.versions.find((v) => v.version === version || v.schemaVersionValues.includes(version));
}
