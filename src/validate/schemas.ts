/**
 * The JSON Schema of each type and version as published: the TypeBox definition as plain JSON with the dialect's
 * `$schema` first. The same object is compiled by Ajv and written to schemas/<type>/<version>.schema.json.
 */
import type { Ajv, ValidateFunction } from 'ajv';
import type { Dialect, DocumentType, FormatVersion } from '../formats/types.js';
import { createAjv } from './ajv.js';

export const DIALECT_URI: Record<Dialect, string> = {
  'draft-07': 'http://json-schema.org/draft-07/schema#',
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
};

/** The schema as JSON (symbols and functions dropped), `$schema` first. */
export function publishedSchema(version: FormatVersion): Record<string, unknown> {
  const plain = JSON.parse(JSON.stringify(version.schema)) as Record<string, unknown>;
  delete plain.$schema;
  return { $schema: DIALECT_URI[version.dialect], ...plain };
}

/** The exact bytes committed under schemas/. */
export function renderSchema(version: FormatVersion): string {
  return `${JSON.stringify(publishedSchema(version), null, 2)}\n`;
}

/** Path of a schema file relative to the schemas/ folder. */
export function schemaFileName(type: DocumentType, version: FormatVersion): string {
  return `${type.id}/${version.version}.schema.json`;
}

const compiled = new WeakMap<FormatVersion, ValidateFunction>();

/** The Ajv validator of a version, compiled once per process (one Ajv instance each, so `$id`s never clash). */
export function compiledValidator(version: FormatVersion): ValidateFunction {
  let fn = compiled.get(version);
  if (!fn) {
    const ajv: Ajv = createAjv(version.dialect, { verbose: true });
    const schema = publishedSchema(version);
    fn = ajv.compile(schema);
    compiled.set(version, fn);
  }
  return fn;
}

/** Every schema file that schemas/ must hold: relative path → exact content. */
export function expectedSchemaFiles(types: readonly DocumentType[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const type of types) {
    for (const version of type.versions) files.set(schemaFileName(type, version), renderSchema(version));
  }
  return files;
}
