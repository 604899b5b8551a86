// `evalkit export hf-evals` on a real DuckDB store filled with generated results, and on real EEE records of the
// reference data (the Open LLM Leaderboard v2 collection): the files read back with a YAML 1.2 parser (the `yaml`
// package) to the store's values, the audit's four statuses on a generated model-repository tree, appending without
// reordering, the same bytes twice, --benchmarks extending the table, a bad --benchmarks file's position, the legacy
// model-index block.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Store } from '../../src/store/db.js';
import { freshStore, insertRecord } from './stats-fixture.js';
import { cli } from '../helpers/cli.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';
import { tempRoot, treeBytes } from '../convert/helpers.js';

/** The chosen score of a model, benchmark and metric, read straight from the tables (latest retrieved record). */
async function storedScore(store: Store, model: string, benchmark: string, metric: string): Promise<number> {
  const rows = await store.all<{ score: number }>(
    `SELECT r.score FROM results r JOIN records rec USING (record_key)
     WHERE rec.model_id = $1 AND r.evaluation_name = $2 AND r.metric_name = $3
     ORDER BY CAST(rec.retrieved_timestamp AS DOUBLE) DESC LIMIT 1`,
    [model, benchmark, metric],
  );
  return rows[0]!.score;
}

const readYaml = (path: string): any => parse(readFileSync(path, 'utf8'));

describe('export hf-evals from a store', () => {
  let store: Store;
  let path: string;
  let done: () => void;
  before(async () => {
    ({ store, path, done } = await freshStore());
    await insertRecord(store, {
      record_key: 'alpha-old',
      model_id: 'org/alpha',
      retrieved_timestamp: '1600000000',
      results: [{ evaluation_name: 'gsm8k', metric_name: 'exact_match', score: 0.2 }],
    });
    await insertRecord(store, {
      record_key: 'alpha',
      model_id: 'org/alpha',
      source_organization: 'Acme Evals',
      results: [
        { evaluation_name: 'gsm8k', metric_name: 'exact_match', score: 0.41234567 },
        { evaluation_name: 'gsm8k', metric_name: 'acc', score: 0.5 },
        { evaluation_name: 'inspect_evals/gpqa_diamond', metric_name: 'accuracy', score: 0.31 },
        { evaluation_name: 'hellaswag', metric_name: 'acc', score: 0.6 },
        { evaluation_name: 'hellaswag', metric_name: 'acc_norm', score: 0.65 },
        { evaluation_name: 'arith-40', metric_name: 'exact_match', score: 0.9 },
        { evaluation_name: 'mmlu', metric_name: 'f1', score: 0.7 },
      ],
    });
    await insertRecord(store, {
      record_key: 'beta',
      model_id: 'org/beta',
      results: [
        { evaluation_name: 'mmlu_pro', metric_name: 'accuracy', score: 55.25 },
        { evaluation_name: 'HLE', metric_name: 'accuracy', score: 0.125 },
      ],
    });
    const c = store.connection;
    await c.run(
      `UPDATE records SET evaluation_timestamp = '1736937000', source_organization_url = 'https://acme.example/evals' WHERE record_key = 'alpha'`,
    );
  });
  after(() => done());

  test('the files read back with a YAML parser to the store values; unmapped benchmarks listed; same bytes twice', async () => {
    const out = join(tempRoot('evalkit-hf-'), 'out');
    const r = await cli(['export', 'hf-evals', out, '--db', path, '--format', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    const status = (model: string, benchmark: string) =>
      report.rows.find((x: any) => x.model_id === model && x.benchmark === benchmark)?.status;
    assert.equal(status('org/alpha', 'arith-40'), 'unmapped');
    assert.equal(status('org/alpha', 'mmlu'), 'unmapped'); // its only metric (f1) is not the mapped one
    assert.match(report.rows.find((x: any) => x.benchmark === 'mmlu').reason, /none of the mapped metric/);

    const gsm = readYaml(join(out, 'org/alpha/.eval_results/gsm8k.yaml'));
    assert.deepEqual(gsm, [
      {
        dataset: { id: 'openai/gsm8k', task_id: 'gsm8k' },
        value: await storedScore(store, 'org/alpha', 'gsm8k', 'exact_match'),
        date: '2025-01-15T10:30:00Z',
        source: { url: 'https://acme.example/evals', name: 'Acme Evals' },
      },
    ]);
    assert.equal(gsm[0].value, 0.41234567); // the latest record, the mapped metric, the stored precision
    const hella = readYaml(join(out, 'org/alpha/.eval_results/hellaswag.yaml'));
    assert.equal(hella[0].value, await storedScore(store, 'org/alpha', 'hellaswag', 'acc_norm'));
    const gpqa = readYaml(join(out, 'org/alpha/.eval_results/gpqa_diamond.yaml'));
    assert.deepEqual(gpqa[0].dataset, { id: 'Idavidrein/gpqa', task_id: 'gpqa_diamond' });
    // No URL, no source block (the Hub requires one); no evaluation timestamp, no date.
    const pro = readYaml(join(out, 'org/beta/.eval_results/mmlu_pro.yaml'));
    assert.deepEqual(pro, [{ dataset: { id: 'TIGER-Lab/MMLU-Pro', task_id: 'mmlu_pro' }, value: 55.25 }]);
    assert.equal(readYaml(join(out, 'org/beta/.eval_results/hle.yaml'))[0].value, 0.125);
    assert.deepEqual(readdirSync(join(out, 'org/alpha/.eval_results')).sort(), [
      'gpqa_diamond.yaml',
      'gsm8k.yaml',
      'hellaswag.yaml',
    ]);

    const again = join(tempRoot('evalkit-hf-'), 'out');
    assert.equal((await cli(['export', 'hf-evals', again, '--db', path])).code, 0);
    assert.deepEqual(treeBytes(again), treeBytes(out));
    // A non-empty output folder without --model-repos is refused.
    const refused = await cli(['export', 'hf-evals', out, '--db', path]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /is not empty/);
  });

  test('the audit against a model-repository tree: ready, already_present, score_conflict, unmapped; only ready appended', async () => {
    const repos = tempRoot('evalkit-hf-repos-');
    const alpha = join(repos, 'org/alpha/.eval_results');
    const beta = join(repos, 'org/beta/.eval_results');
    mkdirSync(alpha, { recursive: true });
    mkdirSync(beta, { recursive: true });
    // gsm8k: the same value already there (another number spelling), after someone else's entry.
    const gsmText = `# community results
- dataset:
    id: openai/gsm8k
    task_id: gsm8k_cot
  value: 0.77
- dataset: {id: openai/gsm8k, task_id: gsm8k}
  value: 4.1234567e-1
`;
    writeFileSync(join(alpha, 'gsm8k.yaml'), gsmText);
    // gpqa: another value for the same dataset and task, in a file of another name.
    const gpqaText = '- dataset:\n    id: Idavidrein/gpqa\n    task_id: gpqa_diamond\n  value: 0.35\n';
    writeFileSync(join(alpha, 'gpqa.yml'), gpqaText);
    // beta's mmlu_pro file holds an entry of another task: ours is appended after it.
    const proText =
      '- dataset:\n    id: TIGER-Lab/MMLU-Pro\n    task_id: mmlu_pro_cot\n  value: 61.2\n  notes: "with tools"';
    writeFileSync(join(beta, 'mmlu_pro.yaml'), proText);

    const r = await cli([
      'export',
      'hf-evals',
      repos,
      '--db',
      path,
      '--model-repos',
      repos,
      '--format',
      'json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    const statuses = Object.fromEntries(
      report.rows.map((x: any) => [`${x.model_id} ${x.benchmark}`, x.status]),
    );
    assert.deepEqual(statuses, {
      'org/alpha arith-40': 'unmapped',
      'org/alpha gsm8k': 'already_present',
      'org/alpha hellaswag': 'ready',
      'org/alpha inspect_evals/gpqa_diamond': 'score_conflict',
      'org/alpha mmlu': 'unmapped',
      'org/beta HLE': 'ready',
      'org/beta mmlu_pro': 'ready',
    });
    const conflict = report.rows.find((x: any) => x.status === 'score_conflict');
    assert.deepEqual(conflict.existing, { file: '.eval_results/gpqa.yml', index: 0, value: 0.35 });
    // Untouched: the already-present and the conflicting files; no gpqa_diamond.yaml written beside the conflict.
    assert.equal(readFileSync(join(alpha, 'gsm8k.yaml'), 'utf8'), gsmText);
    assert.equal(readFileSync(join(alpha, 'gpqa.yml'), 'utf8'), gpqaText);
    assert.equal(existsSync(join(alpha, 'gpqa_diamond.yaml')), false);
    // Appended without reordering: the old text is a prefix, the entries read back in order.
    const pro = readFileSync(join(beta, 'mmlu_pro.yaml'), 'utf8');
    assert.ok(pro.startsWith(proText), pro);
    assert.deepEqual(
      parse(pro).map((e: any) => [e.dataset.task_id, e.value]),
      [
        ['mmlu_pro_cot', 61.2],
        ['mmlu_pro', 55.25],
      ],
    );
    assert.equal(readYaml(join(alpha, 'hellaswag.yaml'))[0].value, 0.65);
    assert.deepEqual(
      report.written.map((w: any) => [w.file, w.appended]),
      [
        ['org/alpha/.eval_results/hellaswag.yaml', false],
        ['org/beta/.eval_results/hle.yaml', false],
        ['org/beta/.eval_results/mmlu_pro.yaml', true],
      ],
    );
    // Run again: everything now already present, nothing written.
    const second = JSON.parse(
      (await cli(['export', 'hf-evals', repos, '--db', path, '--model-repos', repos, '-f', 'json'])).stdout,
    );
    assert.equal(second.written.length, 0);
    assert.deepEqual([...new Set(second.rows.map((x: any) => x.status))].sort(), [
      'already_present',
      'score_conflict',
      'unmapped',
    ]);

    // A repository file that is not YAML stops the export before anything is written, with its position.
    const broken = tempRoot('evalkit-hf-repos-');
    mkdirSync(join(broken, 'org/alpha/.eval_results'), { recursive: true });
    writeFileSync(join(broken, 'org/alpha/.eval_results/x.yaml'), '- dataset:\n    id: [unclosed\n');
    const bad = await cli(['export', 'hf-evals', broken, '--db', path, '--model-repos', broken]);
    assert.equal(bad.code, 1, bad.stderr);
    assert.match(bad.stderr, /x\.yaml:\d+:\d+: .*hf-evals\.bad-yaml|hf-evals\.bad-yaml.*x\.yaml:\d+:\d+/s);
    assert.equal(existsSync(join(broken, 'org/alpha/.eval_results/hellaswag.yaml')), false);

    // The text table names each status.
    const text = await cli(['export', 'hf-evals', repos, '--db', path, '--model-repos', repos, '--dry-run']);
    assert.match(text.stdout, /score_conflict +\.eval_results\/gpqa\.yml #1 has 0\.35/);
    assert.match(text.stdout, /dry run: nothing written/);
  });

  test('--benchmarks maps a benchmark the table does not know; a bad file is refused with its position', async () => {
    const dir = tempRoot('evalkit-hf-');
    const file = join(dir, 'benchmarks.json');
    writeFileSync(
      file,
      JSON.stringify({
        'arith-40': {
          dataset_id: 'acme/arith',
          task_id: 'arith40',
          metric: 'exact_match',
          notes: 'no tools',
        },
      }),
    );
    const out = join(dir, 'out');
    const r = await cli([
      'export',
      'hf-evals',
      out,
      '--db',
      path,
      '--benchmarks',
      file,
      '--model',
      'org/alpha',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(readYaml(join(out, 'org/alpha/.eval_results/arith40.yaml'))[0], {
      dataset: { id: 'acme/arith', task_id: 'arith40' },
      value: 0.9,
      date: '2025-01-15T10:30:00Z',
      source: { url: 'https://acme.example/evals', name: 'Acme Evals' },
      notes: 'no tools',
    });
    assert.equal(existsSync(join(out, 'org/beta')), false);
    const unknown = await cli(['export', 'hf-evals', join(dir, 'o3'), '--db', path, '--model', 'org/alph']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown model "org\/alph"; closest known: org\/alpha/);

    const bad = join(dir, 'bad.json');
    writeFileSync(
      bad,
      '{\n  "arith-40": {\n    "dataset_id": "acme arith",\n    "task_id": "t",\n    "metric": "em"\n  }\n}\n',
    );
    const refused = await cli(['export', 'hf-evals', join(dir, 'out2'), '--db', path, '--benchmarks', bad]);
    assert.equal(refused.code, 2);
    assert.match(
      refused.stderr,
      /bad\.json:3:19: \/arith-40\/dataset_id: expected a Hub dataset id "org\/name"/,
    );
    assert.doesNotMatch(refused.stderr, /at .*\.ts:\d+/); // no stack trace
  });

  test('--model-index prints the legacy block, which reads back', async () => {
    const r = await cli([
      'export',
      'hf-evals',
      join(tempRoot('evalkit-hf-'), 'o'),
      '--db',
      path,
      '--model-index',
      '--model',
      'org/beta',
      '-f',
      'json',
    ]);
    const block = JSON.parse(r.stdout).model_index['org/beta'];
    const card = parse(block);
    assert.equal(card['model-index'][0].name, 'beta');
    const results = card['model-index'][0].results;
    assert.deepEqual(
      results.map((x: any) => [x.dataset.type, x.dataset.config, x.metrics[0].type, x.metrics[0].value]),
      [
        ['TIGER-Lab/MMLU-Pro', 'mmlu_pro', 'accuracy', 55.25],
        ['cais/hle', 'hle', 'accuracy', 0.125],
      ],
    );
  });
});

const OPEN_LLM = 'eee/records/data/hfopenllm_v2';
test(
  "real EEE records (Open LLM Leaderboard v2) as input: mapped benchmarks exported with the records' scores",
  { skip: skipWithoutReference(OPEN_LLM) },
  async () => {
    const root = reference(OPEN_LLM)!;
    const developer = readdirSync(root).sort()[0]!;
    const modelDir = join(root, developer, readdirSync(join(root, developer)).sort()[0]!);
    const file = join(
      modelDir,
      readdirSync(modelDir).find((n) => n.endsWith('.json'))!,
    );
    const record = JSON.parse(readFileSync(file, 'utf8'));
    // A generated variant beside it: the same record, another model and scores, in a folder of its own.
    const dir = tempRoot('evalkit-hf-');
    const variant = structuredClone(record);
    variant.model_info.id = 'acme/variant-7b';
    variant.model_info.name = 'variant-7b';
    variant.evaluation_id = `${record.evaluation_id}-variant`;
    for (const r of variant.evaluation_results)
      r.score_details.score = Math.round(r.score_details.score * 5000) / 10000;
    mkdirSync(join(dir, 'in/data/x/acme/variant-7b'), { recursive: true });
    cpSync(file, join(dir, 'in', 'real.json'));
    writeFileSync(
      join(dir, 'in/data/x/acme/variant-7b/0b4d5cf5-8e3a-4a34-9a5d-7c1b2e3f4a5b.json'),
      JSON.stringify(variant),
    );
    const out = join(dir, 'out');
    const r = await cli(['export', 'hf-evals', out, join(dir, 'in'), '-f', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    for (const rec of [record, variant]) {
      const byName = new Map<string, number>(
        rec.evaluation_results.map((x: any) => [x.evaluation_name, x.score_details.score]),
      );
      for (const [name, task] of [
        ['MMLU-PRO', 'mmlu_pro'],
        ['IFEval', 'ifeval'],
        ['BBH', 'bbh'],
      ]) {
        const entries = readYaml(join(out, rec.model_info.id, '.eval_results', `${task}.yaml`));
        assert.equal(entries[0].value, byName.get(name), `${rec.model_info.id} ${name}`);
      }
      // GPQA (the leaderboard's, not the diamond set) and MATH Level 5 have no mapping: listed, not guessed.
      const unmapped = report.rows
        .filter((x: any) => x.model_id === rec.model_info.id && x.status === 'unmapped')
        .map((x: any) => x.benchmark);
      assert.deepEqual(unmapped.sort(), ['GPQA', 'MATH Level 5', 'MUSR']);
    }
  },
);

test('docs/hf-evals.md lists the built-in table as the code holds it', async () => {
  const { builtinRows } = await import('../../src/store/hf-evals/index.js');
  const { projectRoot } = await import('../helpers/shared.js');
  const page = readFileSync(join(projectRoot, 'docs/hf-evals.md'), 'utf8');
  for (const { names, mapping } of builtinRows())
    assert.ok(
      page.includes(
        `| ${names.join(', ')} | ${mapping.dataset_id} | ${mapping.task_id} | ${mapping.metrics.join(', ')} |`,
      ),
      `docs/hf-evals.md: the row of ${names[0]}`,
    );
});
