// Issue 30, defect 5: model identities that look real but are not. A model named by a local path is `local/<name>`
// (the path kept in model_info.additional_details.model_path), never a Hub-like `huggingface/7B`; a server prefix
// (ollama, vllm, hf, mockllm, ...) is never the developer, and such models are flagged by `models` until mapped;
// a --model-map key matches the source's model string exactly as written (`ollama/llama3.1`), and each entry that
// matched nothing is a warning. Real files from ../shared/reference/peers-wild-2 plus generated ones.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-models-'));
after(() => rmSync(temp, { recursive: true, force: true }));

const LATXA = 'peers-wild-2/lm-eval-harness/hitz-zentroa__latxa__latxa-13b-v1.1-eus_exams_eu';
const OLLAMA = 'peers-wild-2/promptfoo/Wadys__ai-qa-demo__ollama';

async function convert(paths: string[], name: string, extra: string[] = []): Promise<any> {
  const r = await cli(['convert', '-o', join(temp, name), '--format', 'json', ...extra, ...paths]);
  assert.equal(r.code, 0, r.stderr);
  return { ...JSON.parse(r.stdout), stderr: r.stderr };
}

async function models(paths: string[], name: string, extra: string[] = []): Promise<Map<string, any>> {
  const db = join(temp, `${name}.duckdb`);
  const ingest = await cli(['ingest', '--db', db, '--no-progress', ...extra, ...paths]);
  assert.equal(ingest.code, 0, ingest.stderr);
  const r = await cli(['models', '--db', db, '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return new Map(JSON.parse(r.stdout).models.map((m: any) => [m.model_id, m]));
}

function mapFile(name: string, map: Record<string, string>): string {
  const path = join(temp, `${name}.json`);
  writeFileSync(path, JSON.stringify(map));
  return path;
}

test(
  'real: a local path is local/<name>, an ollama provider names no developer; the map matches the string as written',
  { skip: skipWithoutReference(LATXA) || skipWithoutReference(OLLAMA) },
  async () => {
    const paths = [reference(LATXA)!, reference(OLLAMA)!];
    const found = await models(paths, 'real');
    const latxa = found.get('local/Llama-2-13b-hf-eus-v1.1_500k');
    assert.ok(latxa, [...found.keys()].join(', '));
    assert.deepEqual(latxa.flags, ['from-path']);
    assert.equal(
      latxa.model_path,
      '/proiektuak/ilenia-scratch/models/Llama-2-13b-hf-eus-v1.1_500k/global_step10000',
    );
    assert.deepEqual(found.get('unknown/llama3').flags, ['no-developer']);

    const map = mapFile('real-map', {
      'ollama:completion:llama3': 'meta-llama/Meta-Llama-3-8B',
      'ollama/llama3.1': 'meta-llama/Llama-3.1-8B',
    });
    const mapped = await models(paths, 'real-mapped', ['--model-map', map]);
    assert.deepEqual(mapped.get('meta-llama/Meta-Llama-3-8B').flags, []);
    assert.equal(mapped.has('unknown/llama3'), false);
    const converted = await convert(paths, 'real-out', ['--model-map', map]);
    assert.deepEqual(
      converted.warnings.map((w: any) => [w.code, w.message.split(' matched')[0]]),
      [['convert.model-map-unmatched', '--model-map entry "ollama/llama3.1"']],
    );
  },
);

test('generated: Inspect ollama/ and mockllm/ models, an lm-eval path under huggingface/', async () => {
  const dir = join(temp, 'gen');
  mkdirSync(dir, { recursive: true });
  const inspectLog = (model: string, id: string) => ({
    version: 2,
    status: 'success',
    eval: { run_id: id, task_id: id, task: 'quiz', created: '2025-01-02T03:04:05+00:00', model },
    results: {
      total_samples: 1,
      completed_samples: 1,
      scores: [{ name: 'match', scorer: 'match', metrics: { accuracy: { name: 'accuracy', value: 1 } } }],
    },
    samples: [{ id: 1, epoch: 1, input: 'q', target: 'a', scores: { match: { value: 'C' } } }],
  });
  writeFileSync(join(dir, 'ollama.json'), JSON.stringify(inspectLog('ollama/llama3.1', 'r1')));
  writeFileSync(join(dir, 'mock.json'), JSON.stringify(inspectLog('mockllm/model', 'r2')));
  const lm = join(dir, 'lm');
  mkdirSync(lm);
  writeFileSync(
    join(lm, 'results_2025-01-02T03-04-05.000001.json'),
    JSON.stringify({
      results: { quiz: { alias: 'quiz', 'acc,none': 0.5 } },
      versions: { quiz: 0 },
      'n-shot': { quiz: 0 },
      config: { model: 'vllm', model_args: 'pretrained=/cluster/u1/huggingface/7B,dtype=auto' },
      date: 1735787045,
    }),
  );
  const out = await convert([dir], 'gen-out');
  const ids = out.records.map((r: any) => r.aggregatePath.split('/').slice(2, 4).join('/')).sort();
  assert.deepEqual(ids, ['local/7B', 'unknown/llama3.1', 'unknown/model']);
  const found = await models([dir], 'gen');
  assert.deepEqual(found.get('local/7B').flags, ['from-path']);
  assert.equal(found.get('local/7B').model_path, '/cluster/u1/huggingface/7B');
  assert.deepEqual(found.get('unknown/llama3.1').flags, ['no-developer']);
  // The map's key is the model string as the log writes it, provider prefix and all.
  const map = mapFile('gen-map', { 'ollama/llama3.1': 'meta-llama/Llama-3.1-8B', 'no-such-model': 'x/y' });
  const mapped = await convert([join(dir, 'ollama.json')], 'gen-mapped', ['--model-map', map]);
  assert.equal(mapped.records[0].aggregatePath.split('/').slice(2, 4).join('/'), 'meta-llama/Llama-3.1-8B');
  assert.deepEqual(
    mapped.warnings.map((w: any) => w.message.split(' matched')[0]),
    ['--model-map entry "no-such-model"'],
  );
  const text = await cli([
    'convert',
    '-o',
    join(temp, 'gen-text'),
    '--model-map',
    map,
    join(dir, 'ollama.json'),
  ]);
  assert.match(
    text.stderr,
    /^warning convert\.model-map-unmatched: --model-map entry "no-such-model" matched no model/m,
  );
});
