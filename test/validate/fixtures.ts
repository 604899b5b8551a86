// Small EEE instance-level rows written by the tests themselves.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export function instanceRow(i: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const answer = String(i % 7);
  return {
    schema_version: '0.3.0',
    evaluation_id: 'test-eval-1',
    model_id: 'acme/tiny-1b',
    evaluation_name: 'arith',
    sample_id: `s${i}`,
    interaction_type: 'single_turn',
    input: { raw: `What is ${i} mod 7? Say "the answer".`, reference: [answer] },
    output: { raw: [answer] },
    answer_attribution: [
      {
        turn_idx: 0,
        source: 'output.raw',
        extracted_value: answer,
        extraction_method: 'exact',
        is_terminal: true,
      },
    ],
    evaluation: { score: 1, is_correct: true },
    ...overrides,
  };
}

export function jsonl(rows: unknown[]): string {
  return rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n';
}

/** A temporary tree of files (relative path → content). */
export async function makeTree(files: Record<string, string | Buffer>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'evalkit-validate-'));
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, rel)), { recursive: true });
    await writeFile(join(root, rel), content);
  }
  return root;
}

/** bad.jsonl: line 1 valid, 2 missing fields, 3 duplicate key, 4 NaN, 5 blank, 6 wrong type. */
export function badJsonl(): string {
  const { evaluation: _e, model_id: _m, ...missing } = instanceRow(2);
  const dup = JSON.stringify(instanceRow(3)).replace(
    '"evaluation_name":"arith"',
    '"evaluation_name":"arith","evaluation_name":"x"',
  );
  const nan = JSON.stringify(instanceRow(4)).replace('"score":1', '"score":NaN');
  return jsonl([
    instanceRow(1),
    missing,
    dup,
    nan,
    '',
    instanceRow(6, { evaluation: { score: 'high', is_correct: true } }),
  ]);
}
