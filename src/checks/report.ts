/** Collects check findings and turns them into Diagnostics with line:column (positions are looked up once per file). */
import type { Diagnostic, Severity } from '../diagnostics.js';
import { locatePointers } from '../io/strict-json.js';
import { checkMessage, type CheckCodeId } from './codes.js';

interface Pending {
  file: string;
  /** The JSON text the pointer is into (a whole file, or one JSONL line). */
  text?: string;
  /** Line of `text`'s first line in the file (1 for a whole file). */
  firstLine: number;
  /** A known position (used when there is no text to look the pointer up in). */
  position?: { line: number; column: number };
  pointer: string;
  code: CheckCodeId;
  severity: Severity;
  message: string;
}

export class Findings {
  private readonly pending: Pending[] = [];

  add(
    file: string,
    code: CheckCodeId,
    finding: string,
    where: {
      text?: string;
      firstLine?: number;
      pointer?: string;
      severity?: Severity;
      position?: { line: number; column: number };
    } = {},
  ): void {
    this.pending.push({
      file,
      text: where.text,
      firstLine: where.firstLine ?? 1,
      position: where.position,
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
        const at = located.get(p.pointer) ?? { line: 1, column: 1 };
        positions.set(p, { line: at.line + p.firstLine - 1, column: at.column });
      }
    }
    return this.pending.map((p) => {
      const at = positions.get(p) ?? p.position ?? { line: 0, column: 0 };
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
