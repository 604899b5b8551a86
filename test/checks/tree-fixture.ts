// Temporary copies of the example datastore trees, for tests that break one thing at a time.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { projectRoot } from '../helpers/shared.js';

export const EXAMPLES = join(projectRoot, 'examples', 'datastore');
export const CURRENT_UUID = '3f6c1b2a-9d4e-4f7a-8b1c-2d3e4f5a6b7c';
export const LEGACY_UUID = '7a1e5c3d-2b4f-4a6e-9c8d-0e1f2a3b4c5d';
export const MODEL_DIR = 'data/demo-bench/acme/tiny-model';

export interface TempTree {
  root: string;
  aggregate: string;
  samples: string;
  readAggregate(): any;
  writeAggregate(doc: unknown): void;
  readRows(): any[];
  /** Writes the rows and, unless `keepChecksum`, fixes checksum and total_rows so only the intended fault remains. */
  writeRows(rows: unknown[], keepChecksum?: boolean): void;
  cleanup(): void;
}

export function tempDir(prefix = 'evalkit-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A copy of examples/datastore/<which> in a fresh temporary folder. */
export function copyTree(which: 'current' | 'legacy' = 'current'): TempTree {
  const root = tempDir();
  cpSync(join(EXAMPLES, which), root, { recursive: true });
  const uuid = which === 'current' ? CURRENT_UUID : LEGACY_UUID;
  const aggregate = join(root, MODEL_DIR, `${uuid}.json`);
  const samples = join(root, MODEL_DIR, `${uuid}_samples.jsonl`);
  const tree: TempTree = {
    root,
    aggregate,
    samples,
    readAggregate: () => JSON.parse(readFileSync(aggregate, 'utf8')),
    writeAggregate: (doc) => writeFileSync(aggregate, `${JSON.stringify(doc, null, 2)}\n`),
    readRows: () =>
      readFileSync(samples, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l)),
    writeRows: (rows, keepChecksum = false) => {
      const text = rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
      writeFileSync(samples, text);
      if (keepChecksum) return;
      const doc = tree.readAggregate();
      doc.detailed_evaluation_results.checksum = createHash('sha256').update(text).digest('hex');
      doc.detailed_evaluation_results.total_rows = rows.length;
      tree.writeAggregate(doc);
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
  return tree;
}

/**
 * A copy of examples/datastore/bench-repo as a git repository (a `.git` folder) with one benchmark output copied to
 * a place the path policy does not know (`misc/run.json`). The caller removes `root`.
 */
export function benchRepoWithStrayOutput(): string {
  const repo = tempDir();
  cpSync(join(EXAMPLES, 'bench-repo'), repo, { recursive: true });
  mkdirSync(join(repo, '.git'));
  mkdirSync(join(repo, 'misc'));
  cpSync(join(repo, 'outputs/mmlu/run-001.json'), join(repo, 'misc/run.json'));
  return repo;
}
