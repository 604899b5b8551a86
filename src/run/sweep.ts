/**
 * A parameter sweep: one run per value of one parameter, one η each, and a summary of how κ_C moves.
 * Values of n_samples and tie_break share one sample journal (they change only the vote), so a sweep over them
 * draws each sample once; temperature and paraphrase_variant change the samples and get a journal each.
 */
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic.js';
import { evaluationMetrics } from '../metrics/infereval/evaluation-metrics.js';
import { consensusVerdict, isSubstantive } from '../metrics/infereval/model.js';
import { readFile } from 'node:fs/promises';
import { journalPathFor } from './journal.js';
import { withLock } from '../io/lock.js';
import { runEvaluation, type RunConfig, type RunOptions, type RunSummary } from './runner.js';
import type { TieBreak } from './types.js';

export const SWEEP_PARAMETERS = ['n_samples', 'tie_break', 'paraphrase_variant', 'temperature'] as const;
export type SweepParameter = (typeof SWEEP_PARAMETERS)[number];
export type SweepValue = number | TieBreak;

/** The most completions drawn per item (evaluate --n-samples and sweep values): beyond, memory runs out. */
export const MAX_N_SAMPLES = 1000;
/** The highest sampling temperature providers accept (OpenAI's bound; Anthropic's is 1). */
export const MAX_TEMPERATURE = 2;
/** Paraphrase variants above this exist in no benchmark (checked against the benchmark by the CLI). */
const MAX_PARAPHRASE_VARIANT = 1000;

export function parseSweepValues(parameter: SweepParameter, text: string): SweepValue[] {
  const parts = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (parts.length === 0)
    throw new UsageError('sweep.no-values', 'a sweep needs at least one value, e.g. 1,3,5');
  const values = parts.map((p): SweepValue => {
    if (parameter === 'tie_break') {
      if (!['abstain', 'good', 'bad', 'first'].includes(p)) {
        throw new UsageError('sweep.bad-value', `tie_break values are abstain, good, bad, first; got "${p}"`);
      }
      return p as TieBreak;
    }
    const n = Number(p);
    const integer = parameter !== 'temperature';
    const max =
      parameter === 'n_samples'
        ? MAX_N_SAMPLES
        : parameter === 'temperature'
          ? MAX_TEMPERATURE
          : MAX_PARAPHRASE_VARIANT;
    const min = parameter === 'n_samples' ? 1 : 0;
    if (!Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
      throw new UsageError(
        'sweep.bad-value',
        `"${p}" is not a valid ${parameter} value (${integer ? 'an integer' : 'a number'} in [${min}, ${max}])`,
      );
    }
    return n;
  });
  if (new Set(values).size !== values.length)
    throw new UsageError('sweep.duplicate-value', `the sweep values repeat a value: ${text}`);
  return values;
}

export function withValue(config: RunConfig, parameter: SweepParameter, value: SweepValue): RunConfig {
  switch (parameter) {
    case 'n_samples':
      return { ...config, nSamples: value as number };
    case 'tie_break':
      return { ...config, tieBreak: value as TieBreak };
    case 'temperature':
      return { ...config, params: { ...config.params, temperature: value as number } };
    case 'paraphrase_variant':
      return { ...config, prompts: { ...config.prompts, paraphraseVariant: value as number } };
  }
}

/** The spec's reading of the κ_C range across a sweep. */
export function sweepVerdict(range: number | null): string {
  if (range === null) return 'undefined (no run had a defined κ_C)';
  if (range < 0.05) return 'stable';
  if (range < 0.1) return 'moderately sensitive';
  return 'varies substantively';
}

export interface SweepRow {
  value: SweepValue;
  eta: string;
  n_items: number;
  coverage: number;
  cohens_kappa_consensus: number | null;
  fleiss_kappa: number | null;
  agreement_count: number;
  failed_samples: number;
}

export interface SweepSummary {
  benchmark_id: string;
  parameter: SweepParameter;
  values: SweepValue[];
  runs: SweepRow[];
  kappa_range: number | null;
  interpretation: string;
}

/** Items where the model and the analysts' consensus are both substantive and equal. */
export function agreementCount(
  items: readonly { analyst_verdicts: readonly string[]; model_verdict: string }[],
): number {
  let n = 0;
  for (const it of items) {
    const c = consensusVerdict(it.analyst_verdicts as never);
    if (isSubstantive(c) && c === it.model_verdict) n++;
  }
  return n;
}

export interface SweepOptions extends Omit<RunOptions, 'config' | 'outputPath' | 'journalPath' | 'etaId'> {
  config: RunConfig;
  parameter: SweepParameter;
  values: SweepValue[];
  outDir: string;
  onRunStart?: (value: SweepValue, index: number) => void;
  onRunDone?: (value: SweepValue, summary: RunSummary) => void;
}

export function sweepEtaPath(outDir: string, parameter: SweepParameter, value: SweepValue): string {
  return join(outDir, `eta.${parameter}=${String(value)}.json`);
}

/** Runs the sweep under a lock beside its folder (`<outDir>.lock`): two sweeps into one folder are refused. */
export function runSweep(options: SweepOptions): Promise<SweepSummary> {
  return withLock(options.outDir, 'sweep', () => runSweepUnlocked(options));
}

async function runSweepUnlocked(options: SweepOptions): Promise<SweepSummary> {
  const { parameter, values, outDir } = options;
  const shared = parameter === 'n_samples' || parameter === 'tie_break';
  const rows: SweepRow[] = [];
  for (const [index, value] of values.entries()) {
    const outputPath = sweepEtaPath(outDir, parameter, value);
    options.onRunStart?.(value, index);
    const summary = await runEvaluation({
      ...options,
      config: withValue(options.config, parameter, value),
      outputPath,
      journalPath: shared ? join(outDir, 'samples.journal.jsonl') : journalPathFor(outputPath),
      runId:
        options.runId === undefined
          ? undefined
          : shared
            ? options.runId
            : `${options.runId}-${parameter}-${value}`,
      etaId: shared ? `${options.runId ?? 'sweep'}-${parameter}-${value}` : undefined,
    });
    options.onRunDone?.(value, summary);
    const eta = JSON.parse(await readFile(outputPath, 'utf8'));
    const metrics = evaluationMetrics(eta);
    rows.push({
      value,
      eta: outputPath,
      n_items: metrics.n,
      coverage: metrics.coverage,
      cohens_kappa_consensus: metrics.cohens_kappa_consensus,
      fleiss_kappa: metrics.fleiss_kappa,
      agreement_count: agreementCount(eta.items),
      failed_samples: summary.failed,
    });
  }
  const defined = rows.map((r) => r.cohens_kappa_consensus).filter((k): k is number => k !== null);
  const kappa_range = defined.length === 0 ? null : Math.max(...defined) - Math.min(...defined);
  const result: SweepSummary = {
    benchmark_id: options.benchmark.id,
    parameter,
    values,
    runs: rows,
    kappa_range,
    interpretation: sweepVerdict(kappa_range),
  };
  await writeFileAtomic(join(outDir, 'sweep-summary.json'), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}
