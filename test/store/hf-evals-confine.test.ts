// Issue 39 items 16–18 and the hf-evals mutants: `export hf-evals` never reads or writes through a link out of a
// model's clone, says what is wrong with a clone's files (codes, not EISDIR/ENOTDIR/ENOENT), refuses two models
// whose ids clean to one folder, audits the files it actually writes to (OUT's, not only the clone's), makes no
// folder for a model without a clone, and names the evaluator (never "evalkit") as the source. Also: the partial-run
// note, de-duplication keeping the first benchmark, and already_present only for the same value.
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import type { Store } from '../../src/store/db.js';
import { cli } from '../helpers/cli.js';
import { freshStore, insertRecord } from './stats-fixture.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-hf-confine-'));
let n = 0;
const fresh = (name: string): string => {
  const dir = join(temp, `${name}-${++n}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};

let store: Store;
let db: string;
let done: () => void;
before(async () => {
  ({ store, path: db, done } = await freshStore());
  await insertRecord(store, {
    record_key: 'alpha',
    model_id: 'acme/alpha',
    source_organization: 'Acme Evals',
    results: [
      { evaluation_name: 'gsm8k', metric_name: 'exact_match', score: 0.5 },
      // Maps to the same dataset and task as gsm8k: the first by benchmark name (gsm8k) is kept.
      { evaluation_name: 'gsm8k_cot', metric_name: 'exact_match', score: 0.9 },
    ],
  });
  await insertRecord(store, {
    record_key: 'beta',
    model_id: 'acme/beta',
    source_organization: 'evalkit',
    results: [{ evaluation_name: 'hellaswag', metric_name: 'acc', score: 0.25 }],
  });
  await store.connection.run(
    `UPDATE records SET source_organization_url = 'https://evals.example/' || record_key,
       raw = CASE WHEN record_key = 'beta' THEN '{"eval_library":{"additional_details":{"run_status":"partial"}}}' ELSE raw END`,
  );
});
after(() => {
  done();
  rmSync(temp, { recursive: true, force: true });
});

const hf = (out: string, ...rest: string[]) =>
  cli(['export', 'hf-evals', out, '--db', db, '--format', 'json', ...rest]);
const statusOf = (stdout: string): Record<string, string> =>
  Object.fromEntries(JSON.parse(stdout).rows.map((r: any) => [`${r.model_id} ${r.benchmark}`, r.status]));

/** A clone of acme/alpha under a fresh repos folder; returns the repos folder and the clone. */
function reposWithAlpha(): { repos: string; clone: string } {
  const repos = fresh('repos');
  const clone = join(repos, 'acme/alpha');
  mkdirSync(clone, { recursive: true });
  return { repos, clone };
}

test('a link out of the clone is never written through or read: the file, the .eval_results folder (exact cases and variants)', async () => {
  const outside = fresh('outside');
  const cases: { name: string; make: (clone: string) => void; check: () => void }[] = [
    {
      name: '.eval_results/gsm8k.yaml → an outside file with entries',
      make: (clone) => {
        writeFileSync(join(outside, 'kept.yaml'), '- dataset: {id: x/y, task_id: z}\n  value: 1\n');
        mkdirSync(join(clone, '.eval_results'));
        symlinkSync(join(outside, 'kept.yaml'), join(clone, '.eval_results/gsm8k.yaml'));
      },
      check: () =>
        assert.equal(
          readFileSync(join(outside, 'kept.yaml'), 'utf8'),
          '- dataset: {id: x/y, task_id: z}\n  value: 1\n',
        ),
    },
    {
      name: '.eval_results/gsm8k.yaml → an empty outside file',
      make: (clone) => {
        writeFileSync(join(outside, 'empty.yaml'), '');
        mkdirSync(join(clone, '.eval_results'));
        symlinkSync(join(outside, 'empty.yaml'), join(clone, '.eval_results/gsm8k.yaml'));
      },
      check: () => assert.equal(readFileSync(join(outside, 'empty.yaml'), 'utf8'), ''),
    },
    {
      name: '.eval_results → an outside folder',
      make: (clone) => {
        mkdirSync(join(outside, 'dir'), { recursive: true });
        symlinkSync(join(outside, 'dir'), join(clone, '.eval_results'));
      },
      check: () => assert.deepEqual(readdirSync(join(outside, 'dir')), []),
    },
    {
      name: 'another file name, relative link up and out (../../../../outside)',
      make: (clone) => {
        writeFileSync(join(outside, 'other.yaml'), '');
        mkdirSync(join(clone, '.eval_results'));
        symlinkSync(
          join('..', '..', '..', '..', outside.split('/').pop()!, 'other.yaml'),
          join(clone, '.eval_results/other.yaml'),
        );
      },
      check: () => assert.equal(readFileSync(join(outside, 'other.yaml'), 'utf8'), ''),
    },
  ];
  for (const c of cases) {
    const { repos, clone } = reposWithAlpha();
    c.make(clone);
    for (const out of [repos, fresh('out')]) {
      const r = await hf(out, '--model-repos', repos);
      assert.equal(r.code, 2, `${c.name}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /evalkit: error hf-evals\.link-outside: .*outside the model's clone/, c.name);
      assert.doesNotMatch(r.stderr, /internal error/, c.name);
      c.check();
    }
  }
  // The same link in OUT's copy of the model (OUT ≠ the clones) is refused too.
  const { repos } = reposWithAlpha();
  const out = fresh('out');
  mkdirSync(join(out, 'acme/alpha/.eval_results'), { recursive: true });
  writeFileSync(join(outside, 'out-target.yaml'), '');
  symlinkSync(join(outside, 'out-target.yaml'), join(out, 'acme/alpha/.eval_results/gsm8k.yaml'));
  const r = await hf(out, '--model-repos', repos);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /hf-evals\.link-outside/);
  assert.equal(readFileSync(join(outside, 'out-target.yaml'), 'utf8'), '');
});

test('a link that stays inside the clone is followed: the entry lands in the file it names', async () => {
  const { repos, clone } = reposWithAlpha();
  mkdirSync(join(clone, '.eval_results'));
  mkdirSync(join(clone, 'results'));
  writeFileSync(join(clone, 'results/gsm8k.yaml'), '');
  symlinkSync('../results/gsm8k.yaml', join(clone, '.eval_results/gsm8k.yaml'));
  const r = await hf(repos, '--model-repos', repos, '--model', 'acme/alpha');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(parse(readFileSync(join(clone, 'results/gsm8k.yaml'), 'utf8'))[0].value, 0.5);
});

test('a folder where a file belongs, a file where a folder belongs, a dangling link: clear errors, exit 2', async () => {
  const cases: { name: string; make: (clone: string) => void; code: RegExp }[] = [
    {
      name: '.eval_results/gsm8k.yaml is a folder',
      make: (clone) => mkdirSync(join(clone, '.eval_results/gsm8k.yaml'), { recursive: true }),
      code: /hf-evals\.not-a-file: .*gsm8k\.yaml is a folder/,
    },
    {
      name: 'another .yml name is a folder',
      make: (clone) => mkdirSync(join(clone, '.eval_results/notes.yml'), { recursive: true }),
      code: /hf-evals\.not-a-file: .*notes\.yml is a folder/,
    },
    {
      name: '.eval_results is a file',
      make: (clone) => writeFileSync(join(clone, '.eval_results'), 'x'),
      code: /hf-evals\.not-a-folder: .*\.eval_results is a file/,
    },
    {
      name: 'a dangling .eval_results/gsm8k.yaml',
      make: (clone) => {
        mkdirSync(join(clone, '.eval_results'));
        symlinkSync(join(clone, 'gone.yaml'), join(clone, '.eval_results/gsm8k.yaml'));
      },
      code: /hf-evals\.dangling-link: .*gsm8k\.yaml is a symbolic link that leads nowhere/,
    },
    {
      name: 'a dangling .eval_results',
      make: (clone) => symlinkSync(join(clone, 'nowhere'), join(clone, '.eval_results')),
      code: /hf-evals\.dangling-link: .*\.eval_results is a symbolic link that leads nowhere/,
    },
  ];
  // The model's clone itself a file.
  const { repos: fileRepos, clone: fileClone } = reposWithAlpha();
  rmSync(fileClone, { recursive: true });
  writeFileSync(fileClone, 'not a clone');
  for (const out of [fileRepos, fresh('out')]) {
    const r = await hf(out, '--model-repos', fileRepos, '--model', 'acme/alpha');
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /hf-evals\.not-a-folder: .*acme\/alpha is a regular file, not a folder/);
  }
  for (const c of cases) {
    const { repos, clone } = reposWithAlpha();
    c.make(clone);
    for (const out of [repos, fresh('out')]) {
      const r = await hf(out, '--model-repos', repos, '--model', 'acme/alpha');
      assert.equal(r.code, 2, `${c.name}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, c.code, c.name);
      assert.doesNotMatch(r.stderr, /internal error|EISDIR|ENOTDIR|ENOENT/, c.name);
    }
  }
});

test('two models whose ids clean to one folder are refused, naming both (exact cases and a variant)', async () => {
  for (const ids of [
    ['acme/a b', 'acme/a_b'],
    ['模型/x', '模/x'],
    ['Acme/Model', 'acme/model'],
  ]) {
    const { store: s, path, done: close } = await freshStore();
    try {
      for (const [i, id] of ids.entries())
        await insertRecord(s, {
          record_key: `r${i}`,
          model_id: id,
          results: [{ evaluation_name: 'gsm8k', metric_name: 'exact_match', score: 0.1 * (i + 1) }],
        });
      const out = fresh('collide');
      const r = await cli(['export', 'hf-evals', out, '--db', path]);
      assert.equal(r.code, 1, `${ids.join(' / ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /hf-evals\.folder-collision/);
      for (const id of ids) assert.ok(r.stderr.includes(`"${id}"`), `${id} is named: ${r.stderr}`);
      assert.deepEqual(readdirSync(out), [], 'nothing written');
      // One of them alone exports.
      const one = await cli(['export', 'hf-evals', out, '--db', path, '--model', ids[0]!]);
      assert.equal(one.code, 0, one.stderr);
    } finally {
      close();
    }
  }
});

test('OUT ≠ the clones: the audit reads the files written to (OUT first); no folder made for a model without a clone', async () => {
  const { repos } = reposWithAlpha();
  // OUT already has alpha's gsm8k file with another value: a conflict, never an appended second value.
  const out = fresh('out');
  const outFile = join(out, 'acme/alpha/.eval_results/gsm8k.yaml');
  mkdirSync(join(out, 'acme/alpha/.eval_results'), { recursive: true });
  const text = '- dataset: {id: openai/gsm8k, task_id: gsm8k}\n  value: 0.3\n';
  writeFileSync(outFile, text);
  const r = await hf(out, '--model-repos', repos, '--model', 'acme/alpha');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(statusOf(r.stdout)['acme/alpha gsm8k'], 'score_conflict');
  assert.equal(readFileSync(outFile, 'utf8'), text);
  // Variant: the conflicting entry sits in another file of OUT's copy; and the same value there is already_present.
  const out2 = fresh('out');
  mkdirSync(join(out2, 'acme/alpha/.eval_results'), { recursive: true });
  writeFileSync(join(out2, 'acme/alpha/.eval_results/mine.yml'), text);
  assert.equal(
    statusOf((await hf(out2, '--model-repos', repos, '--model', 'acme/alpha')).stdout)['acme/alpha gsm8k'],
    'score_conflict',
  );
  assert.equal(existsSync(join(out2, 'acme/alpha/.eval_results/gsm8k.yaml')), false);
  const out3 = fresh('out');
  mkdirSync(join(out3, 'acme/alpha/.eval_results'), { recursive: true });
  writeFileSync(join(out3, 'acme/alpha/.eval_results/gsm8k.yaml'), text.replace('0.3', '0.5'));
  assert.equal(
    statusOf((await hf(out3, '--model-repos', repos, '--model', 'acme/alpha')).stdout)['acme/alpha gsm8k'],
    'already_present',
  );

  // Writing into the clones (OUT = DIR): beta has no clone, so it is no_clone and repos/acme/beta is not made.
  const into = await hf(repos, '--model-repos', repos);
  assert.equal(into.code, 0, into.stderr);
  const report = JSON.parse(into.stdout);
  const beta = report.rows.find((x: any) => x.model_id === 'acme/beta');
  assert.equal(beta.status, 'no_clone');
  assert.match(beta.reason, /no clone of the model/);
  assert.equal(existsSync(join(repos, 'acme/beta')), false);
  assert.equal(existsSync(join(repos, 'acme/alpha/.eval_results/gsm8k.yaml')), true);
  // Variant: OUT names the same folder another way (a link to it, a trailing `/.`): still no folder for beta.
  const alias = join(fresh('alias'), 'repos-link');
  symlinkSync(repos, alias);
  for (const out of [alias, `${repos}/.`]) {
    const again = JSON.parse((await hf(out, '--model-repos', repos)).stdout);
    assert.equal(again.rows.find((x: any) => x.model_id === 'acme/beta').status, 'no_clone', out);
    assert.equal(existsSync(join(repos, 'acme/beta')), false, out);
  }
  const textOut = await cli(['export', 'hf-evals', repos, '--db', db, '--model-repos', repos, '--dry-run']);
  assert.match(textOut.stdout, /1 without a clone \(not written\)/);
  assert.equal(existsSync(join(repos, 'acme/beta')), false);
});

test('entries: source named after the evaluator (never evalkit), the partial-run note, the first benchmark kept, already_present only for the same value', async () => {
  const out = fresh('out');
  const r = await hf(out);
  assert.equal(r.code, 0, r.stderr);
  const alpha = parse(readFileSync(join(out, 'acme/alpha/.eval_results/gsm8k.yaml'), 'utf8'));
  // gsm8k (0.5) and gsm8k_cot (0.9) map to one dataset and task: one entry, the first benchmark's.
  assert.equal(alpha.length, 1);
  assert.equal(alpha[0].value, 0.5);
  assert.deepEqual(alpha[0].source, { url: 'https://evals.example/alpha', name: 'Acme Evals' });
  const beta = parse(readFileSync(join(out, 'acme/beta/.eval_results/hellaswag.yaml'), 'utf8'));
  // The record's organisation is the tool ("evalkit"): no name rather than the tool's.
  assert.deepEqual(beta[0].source, { url: 'https://evals.example/beta' });
  assert.match(beta[0].notes, /partial run \(the evaluation did not finish\)/);
  assert.equal(alpha[0].notes, undefined);
  // --source-name still names it.
  const named = fresh('out');
  await hf(named, '--source-name', 'Me');
  assert.equal(
    parse(readFileSync(join(named, 'acme/beta/.eval_results/hellaswag.yaml'), 'utf8'))[0].source.name,
    'Me',
  );
  // A value 4e-4 away is another value (score_conflict), not already_present.
  const { repos, clone } = reposWithAlpha();
  mkdirSync(join(clone, '.eval_results'));
  writeFileSync(
    join(clone, '.eval_results/gsm8k.yaml'),
    '- dataset: {id: openai/gsm8k, task_id: gsm8k}\n  value: 0.5004\n',
  );
  assert.equal(
    statusOf((await hf(repos, '--model-repos', repos, '--dry-run')).stdout)['acme/alpha gsm8k'],
    'score_conflict',
  );
});
