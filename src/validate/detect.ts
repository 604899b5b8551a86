/**
 * Which document type and version a document is: its keys (each type's `looksLike`) and its `schema_version`
 * (each version's `schemaVersionValues`), unless the caller forces them.
 */
import { UsageError } from '../errors.js';
import { documentTypes, findType, findVersion } from '../formats/registry.js';
import type { DocumentType, FormatVersion } from '../formats/types.js';
import { isObject } from '../io/json-value.js';

export interface DetectOptions {
  /** Force the document type (an id from the registry). */
  type?: string;
  /** Force the version (a version or one of its schema_version values). */
  schemaVersion?: string;
}

export type Detection =
  | { ok: true; type: DocumentType; version: FormatVersion }
  | {
      ok: false;
      code: 'detect.unknown-type' | 'detect.unknown-version';
      message: string;
      type?: DocumentType;
    };

/** Checks forced options once, up front, so that a wrong --type is a usage error and not one error per document. */
export function checkDetectOptions(
  options: DetectOptions,
  types: readonly DocumentType[] = documentTypes,
): void {
  if (options.type !== undefined) {
    const type = types.find((t) => t.id === options.type);
    if (!type) {
      throw new UsageError(
        'usage.unknown-type',
        `unknown document type "${options.type}"; known types: ${types.map((t) => t.id).join(', ') || '(none registered)'}`,
      );
    }
    if (options.schemaVersion !== undefined && !findVersion(type, options.schemaVersion)) {
      throw new UsageError(
        'usage.unknown-version',
        `${type.id} has no version "${options.schemaVersion}"; known versions: ${type.versions.map((v) => v.version).join(', ')}`,
      );
    }
  } else if (options.schemaVersion !== undefined) {
    if (!types.some((t) => findVersion(t, options.schemaVersion!))) {
      throw new UsageError(
        'usage.unknown-version',
        `no document type has a version "${options.schemaVersion}"`,
      );
    }
  }
}

function describeVersions(type: DocumentType): string {
  const values = type.versions.flatMap((v) => v.schemaVersionValues.map((s) => JSON.stringify(s)));
  return values.join(', ');
}

/** A detector bound to a list of types (the registry by default; tests pass their own). */
export class Detector {
  private readonly bySchemaVersion = new Map<string, { type: DocumentType; version: FormatVersion }[]>();

  constructor(readonly types: readonly DocumentType[] = documentTypes) {
    for (const type of types) {
      for (const version of type.versions) {
        for (const value of version.schemaVersionValues) {
          const list = this.bySchemaVersion.get(value) ?? [];
          list.push({ type, version });
          this.bySchemaVersion.set(value, list);
        }
      }
    }
  }

  findType(id: string): DocumentType | undefined {
    return this.types === documentTypes ? findType(id) : this.types.find((t) => t.id === id);
  }

  detect(doc: unknown, options: DetectOptions = {}): Detection {
    const record: Record<string, unknown> = isObject(doc) ? doc : {};
    const declared = typeof record.schema_version === 'string' ? record.schema_version : undefined;

    let type: DocumentType | undefined;
    if (options.type !== undefined) {
      type = this.findType(options.type);
      if (!type)
        return { ok: false, code: 'detect.unknown-type', message: `unknown document type "${options.type}"` };
    } else {
      if (!isObject(doc)) {
        return {
          ok: false,
          code: 'detect.unknown-type',
          message: `expected a JSON object (one of: ${this.typeList()}), found ${Array.isArray(doc) ? 'an array' : doc === null ? 'null' : typeof doc}`,
        };
      }
      const candidates = this.types.filter((t) => safeLooksLike(t, record));
      if (candidates.length === 1) type = candidates[0];
      else if (candidates.length > 1) {
        const wanted = options.schemaVersion ?? declared;
        type = candidates.find((t) => wanted !== undefined && findVersion(t, wanted)) ?? candidates[0];
      } else {
        const byVersion = declared !== undefined ? this.bySchemaVersion.get(declared) : undefined;
        const legacy = this.types.map((t) => t.legacyHint?.(record)).find((h) => h !== undefined);
        const hint =
          byVersion && byVersion.length > 0
            ? ` (its schema_version ${JSON.stringify(declared)} belongs to ${byVersion.map((b) => b.type.id).join(' or ')}, but its keys do not; force the type to read it as one)`
            : '';
        return {
          ok: false,
          code: 'detect.unknown-type',
          message: legacy
            ? `not a current document type: ${legacy}`
            : `cannot tell what this document is: expected one of ${this.typeList()}${hint}`,
        };
      }
    }

    const wanted = options.schemaVersion ?? declared;
    if (wanted !== undefined) {
      const version = findVersion(type, wanted);
      if (version) return { ok: true, type, version };
      return {
        ok: false,
        code: 'detect.unknown-version',
        type,
        message: `${type.id}: unknown schema_version ${JSON.stringify(wanted)}; expected one of ${describeVersions(type)}`,
      };
    }
    if (type.versions.length === 1) return { ok: true, type, version: type.versions[0] };
    if (type.versions.length === 0) {
      return {
        ok: false,
        code: 'detect.unknown-version',
        type,
        message: `${type.id} has no versions registered`,
      };
    }
    return {
      ok: false,
      code: 'detect.unknown-version',
      type,
      message: `${type.id}: missing schema_version; expected one of ${describeVersions(type)} (or force a version)`,
    };
  }

  private typeList(): string {
    if (this.types.length === 0) return '(no document types are registered)';
    return this.types.map((t) => `${t.id} (${t.title})`).join(', ');
  }
}

function safeLooksLike(type: DocumentType, doc: Record<string, unknown>): boolean {
  try {
    return type.looksLike(doc);
  } catch {
    return false;
  }
}
