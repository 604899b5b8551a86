/**
 * The shapes an engine has learned (row-shape.ts), tried in turn on each JSONL row: a few, the latest hit first.
 * When rows rarely match (a file of many shapes), it stops trying, so an unusual file pays almost nothing for it.
 */
import type { FormatVersion } from '../../formats/types.js';
import { learnShape, type RowShape } from './row-shape.js';

const MAX_SHAPES = 8;
/** After this many tries, a hit rate under 1/4 turns the fast path off for the rest of the run. */
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

  /** The "type@version" of the row when it has a learned shape (it is then valid), else undefined. */
  match(bytes: Buffer): string | undefined {
    if (this.off || this.shapes.length === 0) return undefined;
    this.tries++;
    const shapes = this.shapes;
    for (let k = 0; k < shapes.length; k++) {
      const shape = shapes[k];
      if (shape.matches(bytes)) {
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
    return !this.off && this.shapes.length < MAX_SHAPES;
  }

  /** Learns a row the exact path found clean (no diagnostic at all) as `version`. */
  learn(bytes: Uint8Array, version: FormatVersion, key: string): void {
    if (!this.learning || this.unsupported.has(version)) return;
    const shape = learnShape(bytes, version, key);
    if (shape) this.shapes.push(shape);
    else this.unsupported.add(version);
  }
}
