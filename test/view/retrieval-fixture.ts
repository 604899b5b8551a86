// A store for the retrieval page's tests: the loop example (gold, results, events) ingested by `evalkit ingest`, and
// a second system's rows scored on ingest.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';

export const loop = join(projectRoot, 'examples', 'retrieval', 'loop');
export type Row = Record<string, unknown>;
export const readJsonl = (path: string): Row[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Row);

export const SECOND_MODEL = 'embed-large-v1';

/**
 * A store with the loop example and a second system (the loop's rows under another model, their ranked ids
 * reversed, no ranking metrics: ingest scores them against the gold rows). Returns its path.
 */
export async function buildRetrievalStore(dir: string): Promise<string> {
  const db = join(dir, 'retrieval.duckdb');
  const second = join(dir, 'second.jsonl');
  writeFileSync(
    second,
    readJsonl(join(loop, 'results.jsonl'))
      .map(({ metrics, verdicts: _v, ...r }) =>
        JSON.stringify({
          ...r,
          metrics: Object.fromEntries(
            Object.entries(metrics as Row).filter(([k]) => ['p50_ms', 'p95_ms', 'errors'].includes(k)),
          ),
          model_id: SECOND_MODEL,
          request_id: `${String(r.request_id)}-b`,
          retrieved_ids: [...(r.retrieved_ids as string[])].reverse(),
        }),
      )
      .join('\n') + '\n',
  );
  const files = ['gold.jsonl', 'results.jsonl', 'events.jsonl'].map((f) => join(loop, f));
  const ingested = await cli(['ingest', '--db', db, ...files, second]);
  assert.equal(ingested.code, 0, ingested.stderr + ingested.stdout);
  return db;
}
