/**
 * The factor-effects model of agreement (`evalkit model`): a logistic regression of per-sample agreement with the
 * reference on the benchmark's declared factors, with item-clustered standard errors, fitted as the infereval
 * reference's `fit_factor_model` does:
 *
 * - one row per sample of an item that has factor levels; a row is dropped when the sample or the item's
 *   reference verdict is abstain (evalkit also drops provider-failed samples, and counts them apart);
 * - factors in sorted name order; each coded as dummies against its first *declared* level; an intercept;
 * - maximum likelihood (we iterate Newton to convergence; the reference stops statsmodels' BFGS at its default
 *   gradient tolerance, so its digits can differ from the exact MLE after the fourth or so);
 * - the cluster-robust covariance by item with statsmodels' default correction G/(G−1)·(N−1)/(N−K);
 * - z tests, normal 95% intervals, per-factor joint Wald χ² tests (df = levels − 1, pseudo-inverse as statsmodels),
 *   McFadden's pseudo-R² against the intercept-only fit.
 *
 * Not a GLMM: the clustered errors stand in for the per-item random effect a mixed model would estimate.
 */
import { DataError } from '../../errors.js';
import { compareCodePoints } from '../../io/canonical.js';
import { clusterRobustCovariance, fitLogistic } from '../stats/logistic.js';
import { dependentColumns, symmetricPseudoInverse, type Matrix } from '../stats/matrix.js';
import { normalQuantile } from '../stats/normal.js';
import { chiSquareSf, normalTwoSidedP } from '../stats/special.js';
import { resolveReference } from './evaluation-metrics.js';
import { sampleFailed, type SampleLike, type Verdict } from './model.js';

export interface FactorModelBenchmark {
  id?: string;
  analysts: readonly { id: string }[];
  factors?: Record<string, readonly string[]> | null;
  factor_kinds?: Record<string, string> | null;
  items: readonly {
    id: string;
    analyst_verdicts: readonly Verdict[];
    factor_levels?: Record<string, string> | null;
  }[];
}

export interface FactorModelEvaluation {
  id?: string;
  benchmark_id?: string;
  items: readonly { id: string; samples?: readonly SampleLike[] }[];
}

export interface FactorEffect {
  factor: string;
  level: string;
  /** The factor's first declared level, against which `coef` is a log odds ratio. */
  baseline: string;
  coef: number;
  std_err: number;
  z_value: number;
  p_value: number;
  conf_int_low: number;
  conf_int_high: number;
  odds_ratio: number;
}

export interface FactorWald {
  factor: string;
  kind: string | null;
  chi2: number;
  df: number;
  p_value: number;
}

export interface FactorModelFit {
  evaluation_id: string | null;
  benchmark_id: string | null;
  reference: string;
  n_observations: number;
  /** Items contributing rows (the clusters). */
  n_items: number;
  n_factors: number;
  n_parameters: number;
  /** Samples the model abstained on, plus samples of items whose reference verdict is abstain. */
  n_dropped_abstain: number;
  dropped: {
    model_abstain: number;
    reference_abstain: number;
    /** Provider failures: instrument failure, never counted as abstention. */
    sample_failed: number;
  };
  /** Items left out: not in the benchmark, without factor levels, or missing a level of a declared factor. */
  skipped_items: {
    not_in_benchmark: string[];
    no_factor_levels: string[];
    incomplete_factor_levels: string[];
  };
  agreement_rate: number;
  deviance: number;
  null_deviance: number;
  log_likelihood: number;
  null_log_likelihood: number;
  pseudo_r2: number | null;
  intercept: Omit<FactorEffect, 'factor' | 'level' | 'baseline'>;
  effects: FactorEffect[];
  factor_wald: FactorWald[];
  iterations: number;
  warnings: string[];
  notes: string[];
}

export interface FactorModelOptions {
  /** `consensus` (default), `analyst:<id>` or `analyst:<0-based index>`. */
  reference?: string;
}

/** The reference model's consensus: the most frequent analyst verdict (abstain counts as one), abstain on a tie. */
export function panelPlurality(verdicts: readonly Verdict[]): Verdict {
  const counts = new Map<Verdict, number>();
  for (const v of verdicts) counts.set(v, (counts.get(v) ?? 0) + 1);
  const top = Math.max(0, ...counts.values());
  const winners = [...counts].filter(([, c]) => c === top).map(([v]) => v);
  return winners.length === 1 ? winners[0] : 'abstain';
}

interface Row {
  item: string;
  agrees: number;
  levels: Record<string, string>;
}

const Z95 = normalQuantile(0.975);

function cellLabel(levels: Record<string, string>, factors: readonly string[]): string {
  return factors.map((f) => `${f}=${levels[f]}`).join(', ');
}

/** Explains a separation: the factor levels (and, failing that, the cells) whose rows all agree or all disagree. */
function separationMessage(
  rows: readonly Row[],
  factors: readonly string[],
  fitted: number[] | null,
): string {
  const pure: string[] = [];
  const groups = new Map<string, Row[]>();
  for (const f of factors)
    for (const r of rows) {
      const key = `${f}=${r.levels[f]}`;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key)!.push(r);
    }
  for (const [key, group] of groups) {
    const s = group.reduce((a, r) => a + r.agrees, 0);
    if (s === 0 || s === group.length)
      pure.push(
        `${key} (${group.length} observation${group.length === 1 ? '' : 's'}, all ${s === 0 ? 'disagree' : 'agree'})`,
      );
  }
  if (pure.length === 0 && fitted) {
    const cells = new Set<string>();
    rows.forEach((r, i) => {
      if (fitted[i] < 1e-6 || fitted[i] > 1 - 1e-6) cells.add(cellLabel(r.levels, factors));
    });
    pure.push(...[...cells].slice(0, 5).map((c) => `the cell ${c}`));
  }
  return (
    'the factors predict agreement perfectly (separation), so the maximum-likelihood estimate does not exist and ' +
    `a coefficient would run off to infinity${pure.length ? `: ${pure.join('; ')}` : ''}. ` +
    'Add items whose agreement varies there, merge levels, or leave that factor out'
  );
}

/** Fits the factor-effects model. Throws DataError (code `model.*`) when there is nothing valid to fit. */
export function fitFactorModel(
  evaluation: FactorModelEvaluation,
  benchmark: FactorModelBenchmark,
  options: FactorModelOptions = {},
): FactorModelFit {
  const spec = options.reference ?? 'consensus';
  const declared = benchmark.factors ?? {};
  const factors = Object.keys(declared).sort(compareCodePoints);
  if (factors.length === 0) {
    throw new DataError(
      'model.no-factors',
      'the benchmark declares no factors, so there is nothing to model; declare `factors` and give items `factor_levels`',
    );
  }
  const ref = resolveReference(spec, benchmark.analysts.length, benchmark as never);
  const referenceOf = (verdicts: readonly Verdict[]): Verdict =>
    ref.kind === 'consensus' ? panelPlurality(verdicts) : verdicts[ref.analystIndex!];

  const benchById = new Map(benchmark.items.map((it) => [it.id, it]));
  const skipped: FactorModelFit['skipped_items'] = {
    not_in_benchmark: [],
    no_factor_levels: [],
    incomplete_factor_levels: [],
  };
  const dropped = { model_abstain: 0, reference_abstain: 0, sample_failed: 0 };
  const rows: Row[] = [];
  for (const item of evaluation.items) {
    const bench = benchById.get(item.id);
    if (!bench) {
      skipped.not_in_benchmark.push(item.id);
      continue;
    }
    const levels = bench.factor_levels ?? {};
    if (Object.keys(levels).length === 0) {
      skipped.no_factor_levels.push(item.id);
      continue;
    }
    if (factors.some((f) => levels[f] === undefined)) {
      // The reference's dummy coding silently puts such an item in every missing factor's baseline level.
      skipped.incomplete_factor_levels.push(item.id);
      continue;
    }
    const refVerdict = referenceOf(bench.analyst_verdicts);
    for (const sample of item.samples ?? []) {
      if (sampleFailed(sample)) dropped.sample_failed++;
      else if (refVerdict === 'abstain') dropped.reference_abstain++;
      else if (sample.parsed_verdict === 'abstain') dropped.model_abstain++;
      else rows.push({ item: item.id, agrees: sample.parsed_verdict === refVerdict ? 1 : 0, levels });
    }
  }
  if (rows.length === 0) {
    throw new DataError(
      'model.no-observations',
      `no substantive observation is left after dropping abstentions (${dropped.model_abstain} model abstentions, ${dropped.reference_abstain} samples of items whose reference abstains, ${dropped.sample_failed} failed samples); cannot fit a model on an all-abstain dataset`,
    );
  }

  // Design: intercept, then per factor (sorted) one dummy per non-first declared level.
  const columns: { name: string; factor: string | null; level: string | null }[] = [
    { name: 'Intercept', factor: null, level: null },
  ];
  for (const f of factors)
    for (const level of declared[f].slice(1)) columns.push({ name: `${f}_${level}`, factor: f, level });
  const x: Matrix = rows.map((r) =>
    columns.map((c) => (c.factor === null ? 1 : r.levels[c.factor] === c.level ? 1 : 0)),
  );
  const y = rows.map((r) => r.agrees);
  const n = rows.length;
  const k = columns.length;
  if (n <= k) {
    throw new DataError(
      'model.rank-deficient',
      `the design is rank-deficient: ${n} observations for ${k} parameters; add items or declare fewer levels`,
    );
  }
  const dependent = dependentColumns(x);
  if (dependent.length > 0) {
    const why = dependent.map((j) => {
      const c = columns[j];
      const used = x.some((row) => row[j] !== 0);
      return used
        ? `${c.factor}=${c.level} is confounded with the levels before it (it is a combination of other columns)`
        : `${c.factor}=${c.level} has no observations (none of its items has a substantive sample left)`;
    });
    throw new DataError('model.rank-deficient', `the design is rank-deficient: ${why.join('; ')}`);
  }
  const clusters = new Set(rows.map((r) => r.item));
  if (clusters.size < 2) {
    throw new DataError(
      'model.too-few-clusters',
      `item-clustered standard errors need at least 2 items with observations; this fit has ${clusters.size}`,
    );
  }
  const agreeing = y.reduce((a, b) => a + b, 0);
  if (agreeing === 0 || agreeing === n)
    throw new DataError('model.separation', separationMessage(rows, factors, null));

  let fit;
  try {
    fit = fitLogistic(x, y);
  } catch {
    throw new DataError('model.rank-deficient', 'the information matrix is singular at the start of the fit');
  }
  if (!fit.converged) {
    throw new DataError('model.separation', separationMessage(rows, factors, fit.fitted));
  }
  const cov = clusterRobustCovariance(
    x,
    y,
    fit,
    rows.map((r) => r.item),
  );
  const se = cov.map((row, j) => Math.sqrt(Math.max(0, row[j])));
  const pbar = agreeing / n;
  const nullLl = n * (pbar * Math.log(pbar) + (1 - pbar) * Math.log(1 - pbar));

  const warnings: string[] = [];
  if (clusters.size - 1 < k) {
    warnings.push(
      `only ${clusters.size} items (clusters) for ${k} parameters: the cluster-robust covariance has rank at most ${clusters.size - 1}, so some standard errors and Wald tests are unreliable`,
    );
  }

  const row = (j: number): Omit<FactorEffect, 'factor' | 'level' | 'baseline'> => {
    const coef = fit.beta[j];
    const z = se[j] > 0 ? coef / se[j] : NaN;
    return {
      coef,
      std_err: se[j],
      z_value: z,
      p_value: normalTwoSidedP(z),
      conf_int_low: coef - Z95 * se[j],
      conf_int_high: coef + Z95 * se[j],
      odds_ratio: Math.exp(coef),
    };
  };
  const effects: FactorEffect[] = [];
  columns.forEach((c, j) => {
    if (c.factor !== null)
      effects.push({ factor: c.factor, level: c.level!, baseline: declared[c.factor][0], ...row(j) });
  });
  const wald: FactorWald[] = [];
  for (const f of factors) {
    const idx = columns.flatMap((c, j) => (c.factor === f ? [j] : []));
    if (idx.length === 0) continue;
    const sub = idx.map((a) => idx.map((b) => cov[a][b]));
    const { inverse, rank } = symmetricPseudoInverse(sub);
    if (rank < idx.length)
      warnings.push(
        `the covariance of factor ${f}'s coefficients is singular: its Wald test uses a pseudo-inverse`,
      );
    const b = idx.map((j) => fit.beta[j]);
    let chi2 = 0;
    for (let a = 0; a < b.length; a++) for (let c = 0; c < b.length; c++) chi2 += b[a] * inverse[a][c] * b[c];
    wald.push({
      factor: f,
      kind: benchmark.factor_kinds?.[f] ?? null,
      chi2,
      df: idx.length,
      p_value: chiSquareSf(chi2, idx.length),
    });
  }
  const skippedCount =
    skipped.not_in_benchmark.length +
    skipped.no_factor_levels.length +
    skipped.incomplete_factor_levels.length;
  if (skipped.incomplete_factor_levels.length > 0)
    warnings.push(
      `${skipped.incomplete_factor_levels.length} item(s) lack a level of some declared factor and were left out (the reference would count them in that factor's baseline level): ${skipped.incomplete_factor_levels.slice(0, 5).join(', ')}${skipped.incomplete_factor_levels.length > 5 ? ', …' : ''}`,
    );

  return {
    evaluation_id: evaluation.id ?? null,
    benchmark_id: benchmark.id ?? null,
    reference: ref.kind === 'consensus' ? 'consensus' : `analyst:${ref.analystId ?? ref.analystIndex}`,
    n_observations: n,
    n_items: clusters.size,
    n_factors: factors.length,
    n_parameters: k,
    n_dropped_abstain: dropped.model_abstain + dropped.reference_abstain,
    dropped,
    skipped_items: skipped,
    agreement_rate: pbar,
    deviance: -2 * fit.logLik,
    null_deviance: -2 * nullLl,
    log_likelihood: fit.logLik,
    null_log_likelihood: nullLl,
    pseudo_r2: nullLl === 0 ? null : 1 - fit.logLik / nullLl,
    intercept: row(0),
    effects,
    factor_wald: wald,
    iterations: fit.iterations,
    warnings,
    notes: [
      'Fixed-effects logistic regression with item-clustered standard errors (statsmodels small-sample correction G/(G−1)·(N−1)/(N−K)).',
      'Approximates the per-item random-effect structure of a proper GLMM; it is not a GLMM: no variance components are estimated.',
      `Reference for 'agreement': '${spec}'${ref.kind === 'consensus' ? " (the analysts' most frequent verdict, abstain counted, abstain on a tie, as the reference's model does; `evalkit metrics` counts only good vs bad)" : ''}.`,
      `Coefficients are log odds ratios against each factor's first declared level.${skippedCount ? ` ${skippedCount} item(s) were left out (see skipped_items).` : ''}`,
    ],
  };
}
