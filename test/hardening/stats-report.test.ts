// `stats` reads boolean 0.2.0 scores as migration does, stays finite on huge scores,
// refuses a file_path outside the datastore; `report` range-checks retest and sweep evidence.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';
import { scoreUncertainty } from '../../src/metrics/eee/uncertainty.js';
import { readRetestEvidence, readSweepEvidence } from '../../src/report/evidence.js';

const legacy = join(projectRoot, 'examples/datastore/legacy');
const name = '7a1e5c3d-2b4f-4a6e-9c8d-0e1f2a3b4c5d';
const rel = 'data/demo-bench/acme/tiny-model';
let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'evalkit-harden-stats-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('stats reads boolean 0.2.0 scores as 1/0, as migrate writes them', async () => {
  const r = await cli(['stats', join(legacy, rel, `${name}.json`), '-f', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const [result] = JSON.parse(r.stdout).results;
  // The two rows score true and false: mean 1/2, sd √(1/2).
  assert.equal(result.uncertainty.num_samples, 2);
  assert.equal(result.uncertainty.mean, 0.5);
  assert.ok(Math.abs(result.uncertainty.standard_deviation - Math.SQRT1_2) < 1e-12);
});

test('huge scores give finite figures, scaled exactly; a spread beyond a float is an error', () => {
  const u = scoreUncertainty([1e308, 1e308, 5e307], { iterations: 200, seed: 1 });
  const third = 1e308 / 3 + 1e308 / 3 + 5e307 / 3;
  assert.ok(Math.abs(u.mean - third) / third < 1e-15, `${u.mean}`);
  // sd of (2, 2, 1)·5e307 is 5e307·√(1/3)
  assert.ok(Math.abs(u.standard_deviation! - 5e307 * Math.sqrt(1 / 3)) / 5e307 < 1e-12);
  for (const x of [u.mean, u.standard_error!, u.bootstrap.lower, u.bootstrap.upper])
    assert.ok(Number.isFinite(x));
  // Small scores are untouched by the scaling path.
  assert.equal(scoreUncertainty([1, 2, 3]).mean, 2);
  assert.throws(() => scoreUncertainty([-1.7e308, 1.7e308]), /eee\.stats\.overflow|too large/);
});

test('stats refuses an absolute file_path and one that climbs out of the datastore', async () => {
  const store = join(dir, 'store');
  cpSync(legacy, store, { recursive: true });
  const aggregatePath = join(store, rel, `${name}.json`);
  const record = JSON.parse(readFileSync(aggregatePath, 'utf8'));
  const outside = join(dir, 'secret_samples.jsonl');
  cpSync(join(legacy, rel, `${name}_samples.jsonl`), outside);
  for (const filePath of [outside, '../../../../../secret_samples.jsonl']) {
    record.detailed_evaluation_results.file_path = filePath;
    writeFileSync(aggregatePath, JSON.stringify(record));
    // The file is beside nothing: only the refused path would find it.
    rmSync(join(store, rel, `${name}_samples.jsonl`), { force: true });
    const r = await cli(['stats', aggregatePath], { cwd: join(store, rel) });
    assert.notEqual(r.code, 0, filePath);
    assert.doesNotMatch(r.stdout, /n=2/, `${filePath} was read`);
    if (filePath === outside) assert.match(r.stderr, /eee\.stats\.samples-outside: .*is an absolute path/);
    else assert.match(r.stderr, /eee\.stats\.samples-not-found/);
  }
});

test('report evidence out of range is refused', async () => {
  assert.throws(
    () => readRetestEvidence({ kappa: 5 }, 'r.json'),
    /r\.json: kappa is 5, outside \[-1, 1\] \(at \/kappa\)/,
  );
  assert.throws(
    () => readRetestEvidence({ kappa: 0.5, agreement: 1e308 }),
    /agreement is 1e\+308, outside \[0, 1\]/,
  );
  assert.throws(
    () => readSweepEvidence({ parameter: 't', points: [{ value: 0, kappa: -1e308 }] }),
    /kappa is -1e\+308, outside \[-1, 1\] \(at \/points\/0\/kappa\)/,
  );
  assert.throws(
    () =>
      readSweepEvidence({
        parameter: 't',
        points: [
          { value: 0, kappa: 0.2 },
          { value: 1, kappa: 0.4 },
        ],
        kappa_range: 1.5,
      }),
    /kappa_range 1\.5 is not the spread/,
  );
  assert.equal(readRetestEvidence({ kappa: -1 }).kappa, -1);
  const retest = join(dir, 'retest-bad.json');
  writeFileSync(retest, JSON.stringify({ kappa: 5, flipped: [] }));
  const r = await cli(['report', join(projectRoot, 'examples/report/evaluation.json'), '--retest', retest]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /report\.evidence: .*kappa is 5, outside \[-1, 1\]/);
});
