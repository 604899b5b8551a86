import type { TSchema } from 'typebox';
import type { Severity } from '../diagnostics.js';

/** JSON Schema dialect a document type is published in. */
export type Dialect = 'draft-07' | '2020-12';

/** A finding of a cross-field rule: where (JSON pointer inside the document), what, and a stable code. */
export interface RuleIssue {
  pointer: string;
  code: string;
  message: string;
  severity?: Severity;
}

/** A rule that runs after the schema passed (it may assume the schema's shape). */
export interface CrossFieldRule {
  code: string;
  description: string;
  check(doc: unknown): RuleIssue[];
}

/** One version of one document type: the schema (TypeBox, so static type + JSON Schema from one source) and rules. */
export interface FormatVersion {
  version: string;
  dialect: Dialect;
  schema: TSchema;
  /** Values of the document's `schema_version` field that mean this version (e.g. "instance_level_eval_0.2.0"). */
  schemaVersionValues: string[];
  rules?: CrossFieldRule[];
  /**
   * Optional: a clearer message for a schema error at a known place, e.g. an upstream quirk that the verdict
   * must reproduce but the user deserves to have explained. Returns undefined to keep the default message.
   */
  explainSchemaError?(error: {
    instancePath: string;
    schemaPath: string;
    keyword: string;
    params: object;
  }): string | undefined;
  /** Upstream schema for conformance tests, relative to ../shared/reference (absent when there is none). */
  upstreamSchema?: string;
}

/** A document type with all its versions, newest last. */
export interface DocumentType {
  /** e.g. "eee.aggregate", "infereval.benchmark", "bench.output". */
  id: string;
  family: 'eee' | 'infereval' | 'retrieval' | 'bench' | 'evalkit';
  title: string;
  /** True when the document's keys say it is this type (independent of schema_version). */
  looksLike(doc: Record<string, unknown>): boolean;
  versions: FormatVersion[];
  /**
   * For a document no type recognises: when it is an older shape this type replaced, says so and how to convert it
   * (e.g. "evalkit migrate"). Returns undefined otherwise.
   */
  legacyHint?(doc: Record<string, unknown>): string | undefined;
}
