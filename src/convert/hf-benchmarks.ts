/**
 * The Hugging Face Hub benchmark datasets evalkit knows, as data: benchmark names (as the harnesses give them) → the
 * dataset id, the task id of the dataset's eval.yaml and the metric(s) in order of preference. Used by
 * `export hf-evals` (store/hf-evals/benchmarks.ts, which extends it with `--benchmarks`) and read back by the
 * `.eval_results` source, so an exported entry converts under the benchmark it came from.
 */
export interface BenchmarkMapping {
  dataset_id: string;
  task_id: string;
  /** The metric names (metric_name or metric_id, compared without case and without a `,filter` suffix). */
  metrics: string[];
  /** Optional: the dataset revision to state. */
  revision?: string;
  /** Optional: notes every entry of this benchmark carries (e.g. "with tools"). */
  notes?: string;
}

const entry = (
  names: string[],
  dataset_id: string,
  task_id: string,
  metrics: string[],
): [string[], BenchmarkMapping] => [names, { dataset_id, task_id, metrics }];

/** The built-in table: the common benchmarks, under the names the harnesses give them. */
export const HF_BENCHMARKS: [string[], BenchmarkMapping][] = [
  entry(
    ['gpqa_diamond', 'gpqa_diamond_zeroshot', 'gpqa_diamond_cot_zeroshot', 'leaderboard_gpqa_diamond'],
    'Idavidrein/gpqa',
    'gpqa_diamond',
    ['accuracy', 'acc', 'exact_match'],
  ),
  entry(['mmlu_pro', 'leaderboard_mmlu_pro'], 'TIGER-Lab/MMLU-Pro', 'mmlu_pro', [
    'accuracy',
    'acc',
    'exact_match',
  ]),
  entry(['gsm8k', 'gsm8k_cot'], 'openai/gsm8k', 'gsm8k', ['exact_match', 'accuracy', 'acc']),
  entry(['hle', 'humanitys_last_exam'], 'cais/hle', 'hle', ['accuracy', 'acc']),
  entry(['mmlu'], 'cais/mmlu', 'mmlu', ['accuracy', 'acc']),
  entry(['arc_challenge', 'arc_c', 'ai2_arc_challenge'], 'allenai/ai2_arc', 'arc_challenge', [
    'acc_norm',
    'accuracy',
    'acc',
  ]),
  entry(['hellaswag'], 'Rowan/hellaswag', 'hellaswag', ['acc_norm', 'accuracy', 'acc']),
  entry(['truthfulqa', 'truthfulqa_mc2', 'truthful_qa'], 'truthfulqa/truthful_qa', 'truthfulqa_mc2', [
    'acc',
    'accuracy',
  ]),
  entry(['winogrande'], 'allenai/winogrande', 'winogrande', ['acc', 'accuracy']),
  entry(['ifeval', 'leaderboard_ifeval'], 'google/IFEval', 'ifeval', [
    'prompt_level_strict_acc',
    'accuracy',
    'acc',
  ]),
  entry(['bbh', 'big_bench_hard', 'leaderboard_bbh'], 'lukaemon/bbh', 'bbh', [
    'exact_match',
    'acc_norm',
    'accuracy',
    'acc',
  ]),
  entry(['math', 'hendrycks_math', 'minerva_math', 'mathematics'], 'EleutherAI/hendrycks_math', 'math', [
    'exact_match',
    'accuracy',
    'acc',
  ]),
];
