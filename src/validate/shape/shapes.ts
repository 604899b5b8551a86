/**
 * The shapes an engine has learned (row-shape.ts), tried in turn on each JSONL row: a few, the latest hit first (a
 * new one takes the place of the least recently hit). The hit rate is watched over windows of rows: when shapes
 * rarely match (rows of many shapes), the fast path rests — no trying, no learning — for a while, then tries again,
 * so such rows pay little for it.
 */
import type { FormatVersion } from '../../formats/types.js';
import { stageBytes } from '../../io/string-scan.js';
import { learnShape, type RowShape } from './row-shape.js';

const MAX_SHAPES = 8;
/** Rows per window of the hit rate. */
const WINDOW = 64;
/** A window with fewer hits than this share of its rows... */
const MIN_HIT_SHARE = 1 / 2;
/** ...rests the fast path for this many rows. */
const REST = 64 * WINDOW;

export class RowShapes {
  private shapes: RowShape[] = [];
  private tries = 0;
  private hits = 0;
  /** Rows left before the fast path is tried again. */
  private resting = 0;
  /** Versions whose schema the fast path cannot reason about. */
  private readonly unsupported = new Set<FormatVersion>();

  constructor(
    /** The depth limit the shapes were learned under (a shape only holds for the same limit). */
    readonly maxDepth: number | undefined,
  ) {}

  /** The "type@version" of the row when it has a learned shape (it is then valid), else undefined. */
  match(bytes: Buffer): string | undefined {
    if (this.resting > 0) {
      this.resting--;
      return undefined;
    }
    if (++this.tries === WINDOW) {
      if (this.hits < WINDOW * MIN_HIT_SHARE) this.resting = REST;
      this.tries = 0;
      this.hits = 0;
    }
    const shapes = this.shapes;
    if (shapes.length === 0) return undefined;
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
    return undefined;
  }

  /** Whether a clean row that did not match should be learned. */
  get learning(): boolean {
    return this.resting === 0;
  }

  /** Learns a row the exact path found clean (no diagnostic at all) as `version`. */
  learn(bytes: Uint8Array, version: FormatVersion, key: string): void {
    if (this.resting > 0 || this.unsupported.has(version)) return;
    const shape = learnShape(bytes, version, key);
    if (!shape) {
      this.unsupported.add(version);
      return;
    }
    if (this.shapes.length >= MAX_SHAPES) this.shapes.pop();
    this.shapes.push(shape);
  }
}
