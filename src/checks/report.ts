/** Collects check findings and turns them into Diagnostics with line:column (positions are looked up once per file). */
import type { Diagnostic, Severity } from '../diagnostics.js';
import { locatePointers } from '../io/strict-json.js';
import { checkMessage, type CheckCodeId } from './codes.js';

type Position = { line: number; column: number };

/**
 * Where a finding lies: a pointer into the JSON text of the file (the whole file, or one JSONL line whose line
 * number is `firstLine`), or a position already known. Every finding has one, so no diagnostic is left at 0:0.
 */
export type FindingPlace = { pointer?: string; severity?: Severity } & (
  { text: string; firstLine?: number } | { position: Position }
);

/** The place of a finding about a whole file (its name, its place in the tree, its being there at all): 1:1. */
export const WHOLE_FILE = { position: { line: 1, column: 1 } } as const;

interface Pending {
  file: string;
  /** The JSON text the pointer is into (a whole file, or one JSONL line). */
  text?: string;
  /** Line of `text`'s first line in the file (1 for a whole file). */
  firstLine: number;
  /** The position when there is no text to look the pointer up in. */
  position: Position;
  pointer: string;
  code: CheckCodeId;
  severity: Severity;
  message: string;
}

export class Findings {
  private readonly pending: Pending[] = [];

  add(file: string, code: CheckCodeId, finding: string, where: FindingPlace): void {
    const inText = 'text' in where;
    this.pending.push({
      file,
      text: inText ? where.text : undefined,
      firstLine: (inText ? where.firstLine : undefined) ?? 1,
      position: inText ? { line: where.firstLine ?? 1, column: 1 } : where.position,
      pointer: where.pointer ?? '',
      code,
      severity: where.severity ?? 'error',
      message: checkMessage(code, finding),
    });
  }

  /** Adds a finding that is already a Diagnostic (position and message final). */
  addDiagnostic(d: Diagnostic): void {
    this.pending.push({
      file: d.file,
      firstLine: 1,
      position: { line: d.line, column: d.column },
      pointer: d.pointer,
      code: d.code as CheckCodeId,
      severity: d.severity,
      message: d.message,
    });
  }

  /** Adds every finding of `other` (in its order) after the ones here. */
  append(other: Findings): void {
    this.pending.push(...other.pending);
  }

  get size(): number {
    return this.pending.length;
  }

  diagnostics(): Diagnostic[] {
    const byText = new Map<string, Pending[]>();
    for (const p of this.pending) {
      if (p.text === undefined) continue;
      const key = `${p.file}\u0000${p.firstLine}`;
      const list = byText.get(key) ?? [];
      list.push(p);
      byText.set(key, list);
    }
    const positions = new Map<Pending, { line: number; column: number }>();
    for (const list of byText.values()) {
      let located: Map<string, { line: number; column: number }>;
      try {
        located = locatePointers(
          list[0].text as string,
          list.map((p) => p.pointer),
        );
      } catch {
        located = new Map();
      }
      for (const p of list) {
        // locatePointers falls back to the nearest ancestor present, and at worst to 1:1.
        const at = located.get(p.pointer) ?? { line: 1, column: 1 };
        positions.set(p, { line: at.line + p.firstLine - 1, column: at.column });
      }
    }
    return this.pending.map((p) => {
      const at = positions.get(p) ?? p.position;
      return {
        file: p.file,
        line: at.line,
        column: at.column,
        pointer: p.pointer,
        severity: p.severity,
        code: p.code,
        message: p.message,
      };
    });
  }
}
