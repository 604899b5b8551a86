// Issue 39 item 14: a result the record keeps as reconciled that no longer is — every row of `sub_a/acc,none`
// deleted, or its declared facts removed and its headline edited — is a disagreement for `evalkit reconcile`
// (exit 1), on a folder of records and on a store; and `ingest --strict` checks every EEE record again as
// `reconcile` does (the same recheck), so a tampered record is refused: a headline edited (0.5 → 0.75), a row
// deleted, flipped or duplicated with the checksum and total_rows recomputed, the declared facts removed.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openStore } from '../../src/store/db.js';
import { cli } from '../helpers/cli.js';
import { writeReconcileRun } from './reconcile-fixture.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-reconcile-tampered-'));
after(() => rmSync(temp, { recursive: true, force: true }));

/** The converted record (a datastore folder): two tasks that both reconcile. */
let clean: string;
before(async () => {
  const run = writeReconcileRun(join(temp, 'run'), 'org/tampered', {
    sub_a: { score: 0.5, n: 4, values: [1, 0, 1, 0] },
    sub_b: { score: 0.75, n: 4, values: [1, 0, 1, 1] },
  });
  clean = join(temp, 'clean');
  const r = await cli(['convert', run, '-o', clean]);
  assert.equal(r.code, 0, r.stderr);
});

interface Copy {
  dir: string;
  aggregate: any;
  rows: any[];
  /** Writes the aggregate and rows back, with the checksum and total_rows of the rows as written. */
  save(): void;
}

let copies = 0;
/** A copy of the clean record to tamper with. */
function copy(): Copy {
  const dir = join(temp, `copy-${++copies}`);
  cpSync(clean, dir, { recursive: true });
  const folder = join(dir, 'data/lm-eval/org/tampered');
  const name = readdirSync(folder).find((f) => f.endsWith('.json'))!;
  const aggregatePath = join(folder, name);
  const samplesPath = aggregatePath.replace(/\.json$/, '_samples.jsonl');
  const c: Copy = {
    dir,
    aggregate: JSON.parse(readFileSync(aggregatePath, 'utf8')),
    rows: readFileSync(samplesPath, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l)),
    save() {
      const text = c.rows.map((r) => `${JSON.stringify(r)}\n`).join('');
      writeFileSync(samplesPath, text);
      c.aggregate.detailed_evaluation_results.checksum = createHash('sha256').update(text).digest('hex');
      c.aggregate.detailed_evaluation_results.total_rows = c.rows.length;
      writeFileSync(aggregatePath, JSON.stringify(c.aggregate, null, 2));
    },
  };
  return c;
}

const result = (c: Copy, id: string): any =>
  c.aggregate.evaluation_results.find((r: any) => r.evaluation_result_id === id);
const ofA = (row: any): boolean => row.evaluation_result_id === 'sub_a/acc,none';

/** Every way the issue names of tampering with sub_a, each leaving a record that validates. */
const TAMPERINGS: { name: string; tamper: (c: Copy) => void; reconcileFails: boolean }[] = [
  {
    name: 'every row of sub_a deleted (exact case)',
    tamper: (c) => (c.rows = c.rows.filter((r) => !ofA(r))),
    reconcileFails: true,
  },
  {
    name: 'the declared facts removed and the headline set to 0.99 (exact case)',
    tamper: (c) => {
      const a = result(c, 'sub_a/acc,none');
      delete a.score_details.details.evalkit_reconciliation_declared;
      a.score_details.score = 0.99;
    },
    reconcileFails: true,
  },
  {
    name: 'the declared facts removed, the headline kept (variant)',
    tamper: (c) => delete result(c, 'sub_a/acc,none').score_details.details.evalkit_reconciliation_declared,
    reconcileFails: true,
  },
  {
    name: 'the headline changed 0.5 → 0.75',
    tamper: (c) => (result(c, 'sub_a/acc,none').score_details.score = 0.75),
    reconcileFails: true,
  },
  {
    name: 'one row deleted',
    tamper: (c) => c.rows.splice(c.rows.findIndex(ofA), 1),
    reconcileFails: true,
  },
  {
    name: 'one row flipped (1 → 0)',
    tamper: (c) => {
      const row = c.rows.find((r) => ofA(r) && r.evaluation.score === 1);
      row.evaluation = { score: 0, is_correct: false };
    },
    reconcileFails: true,
  },
  {
    // A copy of a row under a new sample_id (the same sample_id twice is refused by validation already).
    name: 'one row duplicated',
    tamper: (c) => c.rows.push({ ...structuredClone(c.rows.find(ofA)), sample_id: 'sub_a/copy' }),
    reconcileFails: true,
  },
];

test('reconcile: a result kept as reconciled that no longer is fails (exit 1), on records and on a store', async () => {
  const untouched = await cli(['reconcile', clean, '--format', 'json']);
  assert.equal(untouched.code, 0, untouched.stdout);
  for (const t of TAMPERINGS) {
    const c = copy();
    t.tamper(c);
    c.save();
    assert.equal((await cli(['validate', c.dir, '-q'])).code, 0, `${t.name}: the record still validates`);
    const r = await cli(['reconcile', c.dir, '--format', 'json']);
    assert.equal(r.code, 1, `${t.name}: ${r.stdout}`);
    const a = JSON.parse(r.stdout).results.find((x: any) => x.evaluation_result_id === 'sub_a/acc,none');
    assert.equal(a.stored_outcome, 'reconciled', t.name);
    assert.notEqual(a.outcome, 'reconciled', t.name);
    assert.equal(a.lost, true, t.name);
    const text = await cli(['reconcile', c.dir]);
    assert.match(text.stdout, /sub_a\/acc,none .*\(kept: reconciled\) — no longer reconciled/, t.name);
    assert.match(text.stdout, /1 kept as reconciled no longer reconcile/, t.name);
  }
  // The same on a store: the clean record stored, then every row of sub_a deleted from the store's samples.
  const db = join(temp, 'gutted.duckdb');
  assert.equal((await cli(['ingest', clean, '--db', db, '--no-progress'])).code, 0);
  assert.equal((await cli(['reconcile', '--db', db])).code, 0);
  const store = await openStore(db, { readOnly: false });
  try {
    await store.connection.run(`DELETE FROM samples WHERE evaluation_result_id = 'sub_a/acc,none'`);
  } finally {
    store.close();
  }
  const gutted = await cli(['reconcile', '--db', db, '--format', 'json']);
  assert.equal(gutted.code, 1, gutted.stdout);
  assert.equal(JSON.parse(gutted.stdout).summary.lost, 1);
});

test('ingest --strict re-checks every EEE record as reconcile does: each tampered record is refused', async () => {
  const ok = await cli([
    'ingest',
    clean,
    '--db',
    join(temp, 'strict-ok.duckdb'),
    '--strict',
    '--no-progress',
  ]);
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  for (const [i, t] of TAMPERINGS.entries()) {
    const c = copy();
    t.tamper(c);
    c.save();
    const db = join(temp, `strict-${i}.duckdb`);
    const r = await cli(['ingest', c.dir, '--db', db, '--strict', '--no-progress']);
    assert.equal(r.code, 1, `${t.name}: ${r.stdout}${r.stderr}`);
    assert.match(
      r.stdout,
      /not stored: --strict: 1 result\(s\) disagree with the source \(sub_a\/acc,none: /,
      t.name,
    );
    const count = await cli(['query', 'SELECT count(*) AS n FROM records', '--db', db, '-f', 'jsonl']);
    assert.equal(count.stdout, '{"n":0}\n', `${t.name}: nothing stored`);
    // Without --strict the record is stored (the disagreement is for reconcile to report).
    const lax = await cli(['ingest', c.dir, '--db', join(temp, `lax-${i}.duckdb`), '--no-progress']);
    assert.equal(lax.code, 0, `${t.name}: ${lax.stdout}${lax.stderr}`);
  }
});
