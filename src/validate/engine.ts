/**
 * One document → its issues: detection, the schema (Ajv, compiled once per version), then the version's
 * cross-field rules (only when the schema passed, and never with `schemaOnly`).
 */
import type { Severity } from '../diagnostics.js';
import type { DocumentType, FormatVersion } from '../formats/types.js';
import { Detector, type DetectOptions } from './detect.js';
import { explainSchemaErrors } from './schema-errors.js';
import { compiledValidator } from './schemas.js';
import { RowShapes } from './shape/shapes.js';

export interface EngineOptions extends DetectOptions {
  /** Run the schema only: no cross-field rules, no tree checks. */
  schemaOnly?: boolean;
  /** Document types to detect from (default: the registry). */
  types?: readonly DocumentType[];
  /**
   * false: every JSONL row takes the exact path, none the row-shape fast path (shape/row-shape.ts), which gives the
   * same verdicts and diagnostics (the tests compare the two).
   */
  rowShapes?: boolean;
}

export interface DocumentIssue {
  pointer: string;
  severity: Severity;
  code: string;
  message: string;
}

export interface DocumentVerdict {
  /** Detected (or forced) type id and version, when known. */
  type?: string;
  schemaVersion?: string;
  issues: DocumentIssue[];
}

export class Engine {
  private readonly detector: Detector;
  /** The last verdict with a version, and that version (see learnableVersion). */
  private last?: { verdict: DocumentVerdict; version: FormatVersion };
  private rowShapes?: RowShapes;
  constructor(readonly options: EngineOptions = {}) {
    this.detector = new Detector(options.types);
  }

  /** The shapes of JSONL rows this engine has learned (the fast path, shape/row-shape.ts) under a depth limit. */
  shapes(maxDepth: number | undefined): RowShapes {
    if (this.rowShapes === undefined || this.rowShapes.maxDepth !== maxDepth)
      this.rowShapes = new RowShapes(maxDepth);
    return this.rowShapes;
  }

  /**
   * The version the latest verdict (when it is `verdict`) was checked as, if rows of it may be learned as shapes:
   * not when the version has cross-field rules that this run applies (a shape proves the schema's verdict only).
   */
  learnableVersion(verdict: DocumentVerdict): FormatVersion | undefined {
    if (this.last?.verdict !== verdict) return undefined;
    const { version } = this.last;
    return this.options.schemaOnly || (version.rules ?? []).length === 0 ? version : undefined;
  }

  check(doc: unknown): DocumentVerdict {
    const found = this.detector.detect(doc, this.options);
    if (!found.ok) {
      return {
        type: found.type?.id,
        issues: [{ pointer: '', severity: 'error', code: found.code, message: found.message }],
      };
    }
    const { type, version } = found;
    const verdict: DocumentVerdict = { type: type.id, schemaVersion: version.version, issues: [] };
    this.last = { verdict, version };
    const validate = compiledValidator(version);
    if (!validate(doc)) {
      verdict.issues = explainSchemaErrors(validate.errors ?? [], version);
      return verdict;
    }
    if (!this.options.schemaOnly) verdict.issues = runRules(version, doc);
    return verdict;
  }
}

function runRules(version: FormatVersion, doc: unknown): DocumentIssue[] {
  const out: DocumentIssue[] = [];
  for (const rule of version.rules ?? []) {
    let found;
    try {
      found = rule.check(doc);
    } catch (error) {
      out.push({
        pointer: '',
        severity: 'error',
        code: rule.code,
        message: `rule "${rule.description}" could not run: ${(error as Error).message}`,
      });
      continue;
    }
    for (const i of found) {
      out.push({ pointer: i.pointer, severity: i.severity ?? 'error', code: i.code, message: i.message });
    }
  }
  return out;
}
