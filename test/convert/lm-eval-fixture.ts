// An lm-eval 0.4.x run of our own (results + two samples files), for what the reference files do not cover: a group
// with two subtasks, two filters, a lower-is-better metric, a metric not in the facts table, "N/A" stderr, CRLF.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A small 0.4.x run of our own: a group with two subtasks, filters, a lower-is-better metric, an unknown metric. */
export function writeFixture(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const ts = '2025-01-02T03-04-05.678901';
  const results = {
    results: {
      suite: { alias: 'suite', 'acc,none': 0.5, 'acc_stderr,none': 0.25 },
      sub_a: {
        alias: ' - sub_a',
        'acc,none': 0.75,
        'acc_stderr,none': 0.2165,
        'word_perplexity,none': 12.5,
        'word_perplexity_stderr,none': 'N/A',
      },
      sub_b: {
        alias: ' - sub_b',
        'exact_match,strict-match': 0.25,
        'exact_match_stderr,strict-match': 0.125,
        'exact_match,flexible-extract': 0.5,
        'exact_match_stderr,flexible-extract': 0.25,
        'toxicity,none': 0.1,
      },
    },
    groups: { suite: { alias: 'suite', 'acc,none': 0.5, 'acc_stderr,none': 0.25 } },
    group_subtasks: { suite: ['sub_a', 'sub_b'], sub_a: [], sub_b: [] },
    configs: {
      sub_a: {
        task: 'sub_a',
        dataset_path: 'org/data-a',
        test_split: 'test',
        output_type: 'multiple_choice',
        metric_list: [{ metric: 'acc', aggregation: 'mean', higher_is_better: true }],
      },
      sub_b: {
        task: 'sub_b',
        dataset_path: 'org/data-b',
        test_split: 'test',
        output_type: 'generate_until',
        generation_kwargs: { until: ['\n'], temperature: 0.0, max_gen_toks: 64 },
        metric_list: [{ metric: 'exact_match', aggregation: 'mean' }],
      },
    },
    versions: { sub_a: 1.0, sub_b: 2.0, suite: 0 },
    'n-shot': { sub_a: 0, sub_b: 5 },
    higher_is_better: {
      sub_a: { acc: true, word_perplexity: false },
      sub_b: { exact_match: true, toxicity: false },
      suite: { acc: true },
    },
    'n-samples': { sub_a: { original: 4, effective: 4 }, sub_b: { original: 2, effective: 2 } },
    config: {
      model: 'vllm',
      model_args: 'pretrained=org/tiny-model,dtype=auto',
      batch_size: 'auto',
      bootstrap_iters: 1000,
    },
    git_hash: 'abc1234',
    date: 1735787045.5,
    lm_eval_version: '0.4.8',
    model_name: 'org/tiny-model',
  };
  writeFileSync(join(dir, `results_${ts}.json`), JSON.stringify(results, null, 2));
  const mc = (doc: number, correct: number) => ({
    doc_id: doc,
    doc: { q: `question ${doc}`, label: correct },
    target: correct,
    arguments: {
      gen_args_0: { arg_0: `Q${doc}?`, arg_1: ' yes' },
      gen_args_1: { arg_0: `Q${doc}?`, arg_1: ' no' },
    },
    resps: [[['-1.5', 'False']], [['-0.5', 'True']]],
    filtered_resps: [
      ['-1.5', 'False'],
      ['-0.5', 'True'],
    ],
    filter: 'none',
    metrics: ['acc', 'word_perplexity'],
    doc_hash: `d${doc}`,
    prompt_hash: `p${doc}`,
    target_hash: `t${doc}`,
    acc: correct === 1 ? 1.0 : 0.0,
    word_perplexity: [3.5, 7],
  });
  writeFileSync(
    join(dir, `samples_sub_a_${ts}.jsonl`),
    [0, 1, 2, 3].map((d) => JSON.stringify(mc(d, d % 2))).join('\n') + '\n',
  );
  const gen = (doc: number, filter: string, em: number) => ({
    doc_id: doc,
    doc: { question: `What is ${doc}+${doc}?`, answer: String(2 * doc) },
    target: String(2 * doc),
    arguments: { gen_args_0: { arg_0: `What is ${doc}+${doc}?`, arg_1: { until: ['\n'] } } },
    resps: [[`The answer is ${2 * doc}`]],
    filtered_resps: [filter === 'strict-match' ? '[invalid]' : String(2 * doc)],
    filter,
    metrics: ['exact_match'],
    exact_match: em,
  });
  writeFileSync(
    join(dir, `samples_sub_b_${ts}.jsonl`),
    [
      gen(0, 'strict-match', 0),
      gen(0, 'flexible-extract', 1),
      gen(1, 'strict-match', 1),
      gen(1, 'flexible-extract', 0),
    ]
      .map((l) => JSON.stringify(l))
      .join('\r\n'), // CRLF, no final newline
  );
  return join(dir, `results_${ts}.json`);
}
