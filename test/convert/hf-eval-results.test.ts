// `evalkit convert` of a model repository's Hub community evals (`.eval_results/*.yaml`): the real files of
// peers-wild-3 (read from ../shared/reference, skipped when absent) and files written here for the variants (a
// verified entry, several sources in one file, a bad entry), and the round trip with `export hf-evals`.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { cliFromSource as cli } from '../helpers/cli.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';
import { tempRoot, treeBytes } from './helpers.js';

const HUB = 'peers-wild-3/every-eval-ever/Vedika-advanced-AI__Vedika-4.1-flash__hub-eval_results-yaml';

function aggregates(root: string): any[] {
  const out: any[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, name.name);
      if (name.isDirectory()) walk(p);
      else if (name.name.endsWith('.json')) out.push(JSON.parse(readFileSync(p, 'utf8')));
    }
  };
  walk(root);
  return out.sort((a, b) => (a.evaluation_id < b.evaluation_id ? -1 : 1));
}

test(
  'the real .eval_results files convert to valid headline records, the same bytes twice',
  { skip: skipWithoutReference(HUB) },
  async () => {
    const repo = reference(HUB)!;
    const out = join(tempRoot(), 'out');
    const r = await cli(['convert', repo, '-o', out, '-f', 'json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.summary.records, 5);
    const records = aggregates(out);
    const yamls = readdirSync(join(repo, '.eval_results')).filter((n) => n.endsWith('.yaml'));
    const published = yamls.flatMap((n) => parse(readFileSync(join(repo, '.eval_results', n), 'utf8')));
    const results = records.flatMap((rec) => rec.evaluation_results);
    assert.equal(results.length, published.length);
    for (const entry of published) {
      const result = results.find(
        (x: any) => x.evaluation_result_id === `${entry.dataset.id}/${entry.dataset.task_id}`,
      );
      assert.ok(result, `${entry.dataset.id}`);
      assert.equal(result.score_details.score, entry.value);
      assert.equal(result.source_data.hf_repo, entry.dataset.id);
      assert.equal(result.source_data.additional_details.subset, String(entry.dataset.task_id));
      assert.equal(result.score_details.details.hub_verified, 'false');
      if (entry.notes) assert.equal(result.score_details.details.notes, entry.notes);
    }
    for (const rec of records) {
      assert.equal(rec.source_metadata.source_type, 'documentation');
      assert.equal(rec.source_metadata.evaluator_relationship, 'third_party');
      assert.equal(rec.model_info.id, 'Vedika-advanced-AI/Vedika-4.1-flash');
    }
    const validated = await cli(['validate', out]);
    assert.equal(validated.code, 0, validated.stdout + validated.stderr);
    const again = join(tempRoot(), 'out');
    await cli(['convert', repo, '-o', again]);
    assert.deepEqual(treeBytes(again), treeBytes(out));
  },
);

test('variants: verifyToken, several sources in one file, a dated entry; a bad entry is an error at its line', async () => {
  const root = tempRoot();
  const dir = join(root, 'models--acme--tiny-1b', '.eval_results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'gsm8k.yaml'),
    [
      '- dataset:',
      '    id: openai/gsm8k',
      '    task_id: gsm8k',
      '    revision: abc123',
      '  value: 0.5',
      '  date: 2026-01-02T03:04:05Z',
      '  source:',
      '    url: https://example.org/run',
      '    user: someone',
      '  verifyToken: eyJhbGciOi.signed.token',
      '- dataset:',
      '    id: openai/gsm8k',
      '    task_id: gsm8k_cot',
      '  value: 61.5',
      '  source:',
      '    url: https://example.org/card',
      '    name: Model Card',
      '    org: acme',
      '',
    ].join('\n'),
  );
  const out = join(root, 'out');
  const r = await cli(['convert', dir, '-o', out]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const records = aggregates(out);
  assert.equal(records.length, 2); // one per source
  const verified = records.find((x) => x.source_metadata.source_organization_name === 'someone');
  assert.ok(verified);
  const v = verified.evaluation_results[0];
  assert.equal(v.score_details.details.hub_verified, 'true');
  assert.equal(v.evaluation_name, 'gsm8k'); // the benchmark table's name for openai/gsm8k / gsm8k
  assert.equal(v.metric_config.metric_id, 'exact_match');
  assert.equal(v.source_data.additional_details.revision, 'abc123');
  assert.equal(JSON.stringify(verified).includes('eyJhbGciOi'), false); // the token is not copied
  const card = records.find((x) => x.source_metadata.source_organization_name === 'acme');
  assert.equal(card.model_info.id, 'acme/tiny-1b');
  assert.equal(card.evaluation_results[0].score_details.score, 61.5);
  assert.equal(card.evaluation_results[0].metric_config.metric_name, 'value (as published)');
  assert.equal(card.evaluation_results[0].metric_config.min_score, undefined); // no bounds invented
  assert.equal((await cli(['validate', out])).code, 0);

  writeFileSync(
    join(dir, 'bad.yaml'),
    '- dataset:\n    id: x/y\n  value: 0.1\n- dataset:\n    task_id: t\n  value: 2\n',
  );
  const bad = await cli(['convert', join(dir, 'bad.yaml'), '-o', join(root, 'bad-out')]);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr + bad.stdout, /bad\.yaml:4: entry 1 has no dataset\.id/);
});

test('round trip: export hf-evals → convert → export hf-evals gives the same entries', async () => {
  const root = tempRoot();
  const repo = join(root, 'hub', 'acme', 'tiny-1b', '.eval_results');
  mkdirSync(repo, { recursive: true });
  const entries = [
    {
      dataset: { id: 'openai/gsm8k', task_id: 'gsm8k' },
      value: 0.41234567,
      date: '2025-01-15T10:30:00Z',
      source: { url: 'https://acme.example/evals', name: 'Acme Evals' },
    },
  ];
  writeFileSync(
    join(repo, 'gsm8k.yaml'),
    '- dataset:\n    id: "openai/gsm8k"\n    task_id: "gsm8k"\n  value: 0.41234567\n  date: "2025-01-15T10:30:00Z"\n  source:\n    url: "https://acme.example/evals"\n    name: "Acme Evals"\n',
  );
  const eee = join(root, 'eee');
  assert.equal((await cli(['convert', join(root, 'hub'), '-o', eee])).code, 0);
  const back = join(root, 'back');
  const r = await cli(['export', 'hf-evals', back, eee]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.deepEqual(parse(readFileSync(join(back, 'acme/tiny-1b/.eval_results/gsm8k.yaml'), 'utf8')), entries);
});

const COMMUNITY =
  'peers-wild-3/every-eval-ever/evaleval__every_eval_ever__community-evals-converter-aggregate-0.2.2';

test(
  'the community-evals converter case: EEE data already, refused by convert with that reason (not "unrecognised")',
  { skip: skipWithoutReference(COMMUNITY) },
  async () => {
    const r = await cli(['convert', reference(COMMUNITY)!, '-o', join(tempRoot(), 'out')]);
    assert.equal(r.code, 2); // nothing to convert
    assert.match(
      r.stdout + r.stderr,
      /aggregate\.jsonl: an Every Eval Ever datastore index \(rows naming aggregate objects, schema 0\.2\.2\)/,
    );
    assert.match(
      r.stdout + r.stderr,
      /676f4465-ce78-411a-9f5a-c97b3d2eac4f\.json: an Every Eval Ever record already \(schema 0\.2\.2\)/,
    );
    // A variant written here: a 0.1.0 record met while walking is named as such too.
    const dir = tempRoot();
    writeFileSync(
      join(dir, 'r.json'),
      JSON.stringify({
        schema_version: '0.1.0',
        evaluation_id: 'x',
        model_info: { id: 'a/b', name: 'b' },
        evaluation_results: [],
      }),
    );
    const v = await cli(['convert', dir, '-o', join(dir, 'out')]);
    assert.match(v.stdout + v.stderr, /an Every Eval Ever record already \(schema 0\.1\.0\)/);
  },
);
