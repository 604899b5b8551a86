/**
 * What is known about common metrics, so converted records carry honest `metric_config` facts: the bounds of the
 * scale, whether lower is better by default (a harness's own `higher_is_better` wins), the unit and kind, and the
 * score type. A metric not in this table gets no invented bounds: the converter leaves `min_score`/`max_score` and
 * `score_type` out and says so in the field report.
 *
 * The README's "metric facts" table is generated from `METRIC_FACTS` (a test keeps them in step).
 */

export type Bound = number | 'Infinity' | '-Infinity';

export interface MetricFacts {
  /** The names the metric goes by (lower-case; harness filter suffixes such as `,none` are stripped before lookup). */
  names: string[];
  min: Bound;
  max: Bound;
  lowerIsBetter: boolean;
  /** `metric_unit`: proportion, points (0–100 scales), ratio, bits, nats, ... */
  unit: string;
  /** `metric_kind`: accuracy, f1, correlation, overlap, perplexity, calibration, ... */
  kind: string;
  scoreType: 'continuous' | 'binary';
  /** Where the figures come from (for the README). */
  note: string;
}

export const METRIC_FACTS: readonly MetricFacts[] = [
  {
    names: ['accuracy', 'acc', 'acc_norm', 'acc_mutual_info', 'mean_accuracy'],
    min: 0,
    max: 1,
    lowerIsBetter: false,
    unit: 'proportion',
    kind: 'accuracy',
    scoreType: 'continuous',
    note: 'share of correct answers',
  },
  {
    names: ['exact_match', 'em', 'quasi_exact_match', 'prefix_exact_match', 'quasi_prefix_exact_match'],
    min: 0,
    max: 1,
    lowerIsBetter: false,
    unit: 'proportion',
    kind: 'exact_match',
    scoreType: 'continuous',
    note: 'share of answers equal to a reference',
  },
  {
    names: ['f1', 'micro_f1', 'macro_f1', 'f1_score', 'f1_macro', 'f1_micro'],
    min: 0,
    max: 1,
    lowerIsBetter: false,
    unit: 'proportion',
    kind: 'f1',
    scoreType: 'continuous',
    note: 'harmonic mean of precision and recall',
  },
  {
    names: ['precision', 'recall'],
    min: 0,
    max: 1,
    lowerIsBetter: false,
    unit: 'proportion',
    kind: 'precision_recall',
    scoreType: 'continuous',
    note: 'share of retrieved / relevant items',
  },
  {
    names: ['mcc', 'matthews_correlation'],
    min: -1,
    max: 1,
    lowerIsBetter: false,
    unit: 'correlation',
    kind: 'correlation',
    scoreType: 'continuous',
    note: 'Matthews correlation coefficient (−1 to 1, 0 = chance)',
  },
  {
    names: ['pass@1', 'pass_at_1', 'pass@k', 'pass_at_k', 'pass_rate', 'pass@10', 'pass@100'],
    min: 0,
    max: 1,
    lowerIsBetter: false,
    unit: 'proportion',
    kind: 'pass_rate',
    scoreType: 'continuous',
    note: 'share of problems solved / test cases passed',
  },
  {
    names: ['bleu', 'sacrebleu'],
    min: 0,
    max: 100,
    lowerIsBetter: false,
    unit: 'points',
    kind: 'overlap',
    scoreType: 'continuous',
    note: 'sacreBLEU corpus score, 0–100 (lm-eval, HELM report it so)',
  },
  {
    names: ['chrf', 'chrf++'],
    min: 0,
    max: 100,
    lowerIsBetter: false,
    unit: 'points',
    kind: 'overlap',
    scoreType: 'continuous',
    note: 'sacreBLEU chrF, 0–100',
  },
  {
    names: ['ter'],
    min: 0,
    max: 'Infinity',
    lowerIsBetter: true,
    unit: 'points',
    kind: 'edit_rate',
    scoreType: 'continuous',
    note: 'translation edit rate × 100; may exceed 100',
  },
  {
    names: ['rouge1', 'rouge2', 'rougel', 'rougelsum', 'rouge_l', 'rouge-1', 'rouge-2', 'rouge-l'],
    min: 0,
    max: 1,
    lowerIsBetter: false,
    unit: 'proportion',
    kind: 'overlap',
    scoreType: 'continuous',
    note: 'ROUGE F-measure, 0–1',
  },
  {
    names: ['perplexity', 'word_perplexity', 'byte_perplexity', 'token_perplexity', 'ppl'],
    min: 1,
    max: 'Infinity',
    lowerIsBetter: true,
    unit: 'perplexity',
    kind: 'perplexity',
    scoreType: 'continuous',
    note: 'exp of the mean negative log-likelihood; 1 is perfect',
  },
  {
    names: ['bits_per_byte', 'bpb', 'bits_per_character', 'bpc'],
    min: 0,
    max: 'Infinity',
    lowerIsBetter: true,
    unit: 'bits',
    kind: 'compression',
    scoreType: 'continuous',
    note: 'negative log2-likelihood per byte/character',
  },
  {
    names: ['brier', 'brier_score'],
    min: 0,
    max: 1,
    lowerIsBetter: true,
    unit: 'proportion',
    kind: 'calibration',
    scoreType: 'continuous',
    note: 'mean squared error of probabilities (binary outcomes)',
  },
  {
    names: ['ece', 'expected_calibration_error'],
    min: 0,
    max: 1,
    lowerIsBetter: true,
    unit: 'proportion',
    kind: 'calibration',
    scoreType: 'continuous',
    note: 'expected calibration error',
  },
  {
    names: ['coverage'],
    min: 0,
    max: 1,
    lowerIsBetter: false,
    unit: 'proportion',
    kind: 'coverage',
    scoreType: 'continuous',
    note: 'share of items answered',
  },
  {
    names: [
      'latency_ms',
      'latency_ms_p50',
      'latency_ms_p90',
      'latency_ms_p95',
      'latency_ms_p99',
      'latency_ms_mean',
    ],
    min: 0,
    max: 'Infinity',
    lowerIsBetter: true,
    unit: 'milliseconds',
    kind: 'latency',
    scoreType: 'continuous',
    note: 'response time in milliseconds',
  },
  {
    names: ['kappa', 'cohens_kappa', 'cohen_kappa'],
    min: -1,
    max: 1,
    lowerIsBetter: false,
    unit: 'kappa',
    kind: 'kappa',
    scoreType: 'continuous',
    note: 'chance-corrected agreement',
  },
  {
    names: [
      'attack_success_rate',
      'asr',
      'jailbreak_success',
      'jailbreak_success_rate',
      'jailbreak_rate',
      'harmfulness',
      'harmful_rate',
      'harm_rate',
      'harmful_response_rate',
      'unsafe_rate',
      'unsafe_response_rate',
      'violation_rate',
      'toxicity',
      'toxic_fraction',
      'toxicity_rate',
      'expected_max_toxicity',
      'stereotype_rate',
      'leakage_rate',
      'hallucination_rate',
    ],
    min: 0,
    max: 1,
    lowerIsBetter: true,
    unit: 'proportion',
    kind: 'safety_failure_rate',
    scoreType: 'continuous',
    note: 'share of attacks that succeed / responses that are harmful, toxic or unsafe (lower is safer)',
  },
  {
    names: ['refusal_rate', 'over_refusal_rate', 'false_refusal_rate'],
    min: 0,
    max: 1,
    lowerIsBetter: true,
    unit: 'proportion',
    kind: 'refusal_rate',
    scoreType: 'continuous',
    note: 'share of benign requests refused (lower is better; a harmful-request refusal rate should be declared the other way with --metric-facts)',
  },
  {
    names: ['safe_rate', 'safety_score', 'harmless_rate', 'compliance_refusal_rate'],
    min: 0,
    max: 1,
    lowerIsBetter: false,
    unit: 'proportion',
    kind: 'safety_pass_rate',
    scoreType: 'continuous',
    note: 'share of responses judged safe / attacks resisted',
  },
  {
    names: ['win_rate', 'length_controlled_winrate', 'lc_win_rate', 'discrete_win_rate'],
    min: 0,
    max: 100,
    lowerIsBetter: false,
    unit: 'percent',
    kind: 'win_rate',
    scoreType: 'continuous',
    note: 'AlpacaEval win rate against a reference model, in percent (a tie counts half)',
  },
  {
    names: ['mae', 'mean_absolute_error', 'mse', 'mean_squared_error', 'rmse', 'root_mean_squared_error'],
    min: 0,
    max: 'Infinity',
    lowerIsBetter: true,
    unit: 'error',
    kind: 'error',
    scoreType: 'continuous',
    note: 'mean (squared) error of a numeric prediction; 0 is perfect',
  },
];

/**
 * What a user declares about a metric (`--metric-facts FILE`: a JSON object keyed by metric name), in EEE's own
 * names. Declared facts win over the table and over any guess.
 */
export interface DeclaredMetricFacts {
  lower_is_better?: boolean;
  min_score?: Bound;
  max_score?: Bound;
  score_type?: 'binary' | 'continuous' | 'levels';
  metric_unit?: string;
  metric_kind?: string;
}

export type DeclaredMetricFactsFile = Record<string, DeclaredMetricFacts>;

/** The declared facts of a metric: by its exact source name first, then by its table key (`acc,none` → `acc`). */
export function declaredFacts(
  declared: DeclaredMetricFactsFile | undefined,
  name: string,
): DeclaredMetricFacts | undefined {
  const key = declaredKey(declared, name);
  return key === undefined ? undefined : declared![key];
}

/** The key of the facts file that declares a metric's facts (see `declaredFacts`), or undefined. */
export function declaredKey(declared: DeclaredMetricFactsFile | undefined, name: string): string | undefined {
  if (declared === undefined) return undefined;
  if (Object.hasOwn(declared, name)) return name;
  const key = metricKey(name);
  if (Object.hasOwn(declared, key)) return key;
  return Object.keys(declared).find((k) => metricKey(k) === key);
}

/** Keys of a facts file that one metric would match alike (`acc` and `acc,none`), as groups of two or more. */
export function overlappingFactKeys(declared: DeclaredMetricFactsFile): string[][] {
  const byKey = new Map<string, string[]>();
  for (const k of Object.keys(declared)) byKey.set(metricKey(k), [...(byKey.get(metricKey(k)) ?? []), k]);
  return [...byKey.values()].filter((keys) => keys.length > 1);
}

const BY_NAME = new Map<string, MetricFacts>();
for (const facts of METRIC_FACTS) for (const name of facts.names) BY_NAME.set(name, facts);

/** The table key of a harness metric name: lower-case, without a filter suffix (`acc,none` → `acc`). */
export function metricKey(name: string): string {
  const comma = name.indexOf(',');
  return (comma === -1 ? name : name.slice(0, comma)).trim().toLowerCase();
}

/** The known facts of a metric, or undefined when it is not in the table (then nothing is invented). */
export function metricFacts(name: string): MetricFacts | undefined {
  return BY_NAME.get(metricKey(name));
}

/** Markdown rows for the README table. */
export function metricFactsMarkdown(): string {
  const rows = METRIC_FACTS.map(
    (f) =>
      `| ${f.names.map((n) => `\`${n}\``).join(', ')} | ${f.min} | ${f.max} | ${f.lowerIsBetter ? 'yes' : 'no'} | ${f.unit} | ${f.kind} | ${f.note} |`,
  );
  return [
    '| metric names | min | max | lower is better | unit | kind | meaning |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
