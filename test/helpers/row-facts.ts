// The facts the writer tallies from a block of JSONL rows (tallyBlock), row by row, for tests to compare with
// rowFacts of each parsed row.
import { RowTally, tallyBlock, type RowFacts } from '../../src/checks/reconciliation.js';

class Capture extends RowTally {
  readonly facts: RowFacts[] = [];
  override add(facts: RowFacts): void {
    this.facts.push(facts);
  }
}

export function blockFacts(bytes: Buffer): RowFacts[] {
  const capture = new Capture();
  tallyBlock(capture, bytes);
  return capture.facts;
}
