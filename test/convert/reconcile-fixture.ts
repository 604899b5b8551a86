// A generated lm-eval 0.4 run whose tasks each declare a count and a headline, for the reconciliation tests
// (test/convert/reconciliation.test.ts, test/view/reconciliation-page.test.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const RECONCILE_TS = '2025-05-06T07-08-09.101112';

/** One task: its headline, its n-samples (none when absent), its rows' values, its metric (acc), shared prompts. */
export interface FixtureTask {
  score: number;
  n?: number;
  values: number[];
  metric?: string;
  /** Docs (by index) that share one prompt. */
  samePrompt?: number[];
}

/** One multiple-choice samples line scored `metric`. */
function line(doc: number, value: number, metric: string, prompt: string): string {
  return JSON.stringify({
    doc_id: doc,
    doc: { q: prompt },
    target: 0,
    arguments: { gen_args_0: { arg_0: prompt, arg_1: ' yes' }, gen_args_1: { arg_0: prompt, arg_1: ' no' } },
    resps: [[['-0.5', 'True']], [['-1.5', 'False']]],
    filtered_resps: [
      ['-0.5', 'True'],
      ['-1.5', 'False'],
    ],
    filter: 'none',
    metrics: [metric],
    [metric]: value,
  });
}

/** Writes the run (results file and one samples file per task) into `dir`; the results file's path. */
export function writeReconcileRun(dir: string, model: string, tasks: Record<string, FixtureTask>): string {
  mkdirSync(dir, { recursive: true });
  const results: Record<string, unknown> = {};
  const nSamples: Record<string, unknown> = {};
  const configs: Record<string, unknown> = {};
  for (const [task, t] of Object.entries(tasks)) {
    const metric = t.metric ?? 'acc';
    results[task] = { alias: task, [`${metric},none`]: t.score };
    if (t.n !== undefined) nSamples[task] = { original: t.n, effective: t.n };
    configs[task] = {
      task,
      output_type: 'multiple_choice',
      metric_list: [{ metric, higher_is_better: true }],
    };
    const prompt = (i: number) => (t.samePrompt?.includes(i) ? 'same?' : `${task} question ${i}?`);
    const lines = t.values.map((v, i) => line(i, v, metric, prompt(i)));
    writeFileSync(join(dir, `samples_${task}_${RECONCILE_TS}.jsonl`), `${lines.join('\n')}\n`);
  }
  const path = join(dir, `results_${RECONCILE_TS}.json`);
  writeFileSync(
    path,
    JSON.stringify({ results, 'n-samples': nSamples, configs, model_name: model, lm_eval_version: '0.4.8' }),
  );
  return path;
}
