/**
 * The shapes an engine has learned (row-shape.ts), tried in turn on each JSONL row: a few, the latest hit first (a
 * new one takes the place of the least recently hit). When a file's rows rarely match (many shapes), it stops trying
 * for the rest of that file, so an unusual file pays little for it.
 */
import type { FormatVersion } from '../../formats/types.js';
import { stageBytes } from '../../io/string-scan.js';
import { learnShape, type RowShape } from './row-shape.js';

const MAX_SHAPES = 8;
/** After this many tries in a file, a hit rate under 1/4 turns the fast path off for the rest of the file. */
const TRIAL = 2048;

export class RowShapes {
  private shapes: RowShape[] = [];
  private tries = 0;
  private hits = 0;
  private off = false;
  /** Versions whose schema the fast path cannot reason about. */
  private readonly unsupported = new Set<FormatVersion>();

  constructor(
    /** The depth limit the shapes were learned under (a shape only holds for the same limit). */
    readonly maxDepth: number | undefined,
  ) {}

  /** A new file (or range of one) starts: the hit rate is counted afresh. */
  beginFile(): void {
    this.tries = 0;
    this.hits = 0;
    this.off = false;
  }

  /** The "type@version" of the row when it has a learned shape (it is then valid), else undefined. */
  match(bytes: Buffer): string | undefined {
    if (this.off || this.shapes.length === 0) return undefined;
    this.tries++;
    const shapes = this.shapes;
    const staged = stageBytes(bytes);
    for (let k = 0; k < shapes.length; k++) {
      const shape = shapes[k];
      if (shape.matches(bytes, staged)) {
        this.hits++;
        if (k > 0) {
          shapes.splice(k, 1);
          shapes.unshift(shape);
        }
        return shape.key;
      }
    }
    if (this.tries >= TRIAL && this.hits * 4 < this.tries) this.off = true;
    return undefined;
  }

  /** Whether a clean row that did not match should be learned. */
  get learning(): boolean {
    return !this.off;
  }

  /** Learns a row the exact path found clean (no diagnostic at all) as `version`. */
  learn(bytes: Uint8Array, version: FormatVersion, key: string): void {
    if (this.off || this.unsupported.has(version)) return;
    const shape = learnShape(bytes, version, key);
    if (!shape) {
      this.unsupported.add(version);
      return;
    }
    if (this.shapes.length >= MAX_SHAPES) this.shapes.pop();
    this.shapes.push(shape);
  }
}
