// survey import of a large Qualtrics export (2,000 respondents × 200 items, ~12 MB, 10% of rationales quoted with a
// line break), beside two baselines measured in the same run: reading the CSV alone (decode + RFC 4180 split) and
// hashing the merged benchmark once (importSurvey hashes it before and after the merge).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchmarkHash } from '../src/formats/infereval/hash.js';
import { decodeCsvBytes, parseCsv } from '../src/io/csv-reader.js';
import { importSurvey } from '../src/survey/import/index.js';

const ITEMS = 200;
const RESPONDENTS = 2000;
const LABELS = ['Good — follows from premises', 'Bad — does not follow', 'Abstain — cannot judge'];

function makeInputs(dir: string): { benchmark: string; responses: string } {
  const benchmark = join(dir, 'bench.json');
  writeFileSync(
    benchmark,
    JSON.stringify({
      schema_version: '1.0',
      id: 'survey-bench',
      bearers: { p: { expression: 'p' }, q: { expression: 'q' } },
      analysts: [{ id: 'seed' }],
      items: Array.from({ length: ITEMS }, (_, k) => ({
        id: `i${k}`,
        premises: ['p'],
        conclusions: ['q'],
        analyst_verdicts: ['good'],
      })),
    }),
  );
  const header = ['ResponseId', 'Finished', 'expertise'];
  for (let k = 0; k < ITEMS; k++) header.push(`i${k}`, `i${k}_rationale`);
  const lines = [header.join(',')];
  let seed = 1;
  const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let r = 0; r < RESPONDENTS; r++) {
    const row = [`R_${r}`, 'True', 'x'];
    for (let k = 0; k < ITEMS; k++)
      row.push(LABELS[Math.floor(rand() * 3)], rand() < 0.1 ? '"because, ""quoted""\nline"' : '');
    lines.push(row.join(','));
  }
  const responses = join(dir, 'responses.csv');
  writeFileSync(responses, lines.join('\r\n') + '\r\n');
  return { benchmark, responses };
}

const time = async <T>(f: () => Promise<T> | T): Promise<[T, number]> => {
  const t = performance.now();
  const v = await f();
  return [v, performance.now() - t];
};

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'evalkit-bench-survey-'));
  try {
    const { benchmark, responses } = makeInputs(dir);
    const bytes = await readFile(responses);
    // warm-up, then measure
    parseCsv(decodeCsvBytes(bytes, responses), responses);
    const [records, csvMs] = await time(() => parseCsv(decodeCsvBytes(bytes, responses), responses));
    const [result, importMs] = await time(() =>
      importSurvey({ benchmark, responses, from: 'qualtrics-csv' }),
    );
    const [, hashMs] = await time(() =>
      benchmarkHash(result.benchmark as unknown as Record<string, unknown>),
    );
    console.log(
      `${RESPONDENTS} respondents × ${ITEMS} items, ${(bytes.length / 1e6).toFixed(1)} MB, ${records.length} records`,
    );
    console.log(`  baseline: read the CSV (decode + split)        ${csvMs.toFixed(0)} ms`);
    console.log(`  baseline: hash the merged benchmark once        ${hashMs.toFixed(0)} ms`);
    console.log(
      `  survey import (read, merge, validate, hash ×2)  ${importMs.toFixed(0)} ms = ${(importMs / csvMs).toFixed(1)}× the CSV read`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
