/**
 * The JSON Schema of each type and version as published: the TypeBox definition as plain JSON with the dialect's
 * `$schema` first. The same object is compiled by Ajv and written to schemas/<type>/<version>.schema.json.
 */
import type { Ajv } from 'ajv';
import type { Dialect, DocumentType, FormatVersion } from '../formats/types.js';
import { documentTypes } from '../formats/registry.js';
import { createAjv } from './ajv.js';
import { precompiledValidators, type SchemaValidator } from './compiled/index.js';

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

/** Ajv options of the validators on top of the shared configuration (errors carry their schema and data). */
export const VALIDATOR_OPTIONS = { verbose: true } as const;

const compiled = new WeakMap<FormatVersion, SchemaValidator>();
for (const type of documentTypes) {
  for (const version of type.versions) {
    const fn = precompiledValidators[`${type.id}@${version.version}`];
    if (fn) compiled.set(version, fn);
  }
}

/**
 * The Ajv validator of a version: precompiled (compiled/, written by `npm run schemas`) for the registered types,
 * else compiled once per process (one Ajv instance each, so `$id`s never clash).
 */
export function compiledValidator(version: FormatVersion): SchemaValidator {
  let fn = compiled.get(version);
  if (!fn) {
    const ajv: Ajv = createAjv(version.dialect, VALIDATOR_OPTIONS);
    fn = ajv.compile(publishedSchema(version));
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
