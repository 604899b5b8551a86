/**
 * Binary logistic regression by maximum likelihood (Newton–Raphson, which for the logit link is IRLS), with
 * step-halving, and the cluster-robust ("sandwich") covariance with statsmodels' default small-sample correction
 * G/(G−1) · (N−1)/(N−K) (`cov_type="cluster"`, `use_correction=True`).
 *
 * Newton converges in a handful of steps when the MLE exists. When it does not (separation: some combination of
 * the covariates predicts the outcome perfectly) a coefficient runs off to infinity, each step keeps moving it by
 * about one, and `converged` stays false: the caller reports that instead of printing meaningless numbers.
 */
import { choleskyInverse, matMul, type Matrix } from './matrix.js';

export interface LogisticFit {
  beta: number[];
  logLik: number;
  fitted: number[];
  /** (XᵀWX)⁻¹ at the estimate: the model-based covariance. */
  hessianInverse: Matrix;
  iterations: number;
  converged: boolean;
}

const sigmoid = (eta: number): number =>
  eta >= 0 ? 1 / (1 + Math.exp(-eta)) : Math.exp(eta) / (1 + Math.exp(eta));

/** log(1 + e^η) without overflow. */
const softplus = (eta: number): number =>
  eta > 0 ? eta + Math.log1p(Math.exp(-eta)) : Math.log1p(Math.exp(eta));

function logLikelihood(x: Matrix, y: readonly number[], beta: readonly number[]): number {
  let ll = 0;
  for (let i = 0; i < x.length; i++) {
    let eta = 0;
    for (let j = 0; j < beta.length; j++) eta += x[i][j] * beta[j];
    ll += y[i] * eta - softplus(eta);
  }
  return ll;
}

function information(x: Matrix, p: readonly number[]): Matrix {
  const k = x[0].length;
  const h: Matrix = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (let i = 0; i < x.length; i++) {
    const w = p[i] * (1 - p[i]);
    const row = x[i];
    for (let a = 0; a < k; a++) {
      if (row[a] === 0) continue;
      const wa = w * row[a];
      for (let b = 0; b <= a; b++) h[a][b] += wa * row[b];
    }
  }
  for (let a = 0; a < k; a++) for (let b = 0; b < a; b++) h[b][a] = h[a][b];
  return h;
}

function fittedValues(x: Matrix, beta: readonly number[]): number[] {
  return x.map((row) => sigmoid(row.reduce((s, v, j) => s + v * beta[j], 0)));
}

/**
 * Fits P(y = 1) = σ(Xβ). Throws RangeError when XᵀWX is singular (a rank-deficient design: check the design
 * first with `dependentColumns`).
 */
export function fitLogistic(
  x: Matrix,
  y: readonly number[],
  options: { maxIterations?: number; tolerance?: number } = {},
): LogisticFit {
  const maxIterations = options.maxIterations ?? 100;
  const tolerance = options.tolerance ?? 1e-10;
  const k = x[0]?.length ?? 0;
  let beta = new Array<number>(k).fill(0);
  let ll = logLikelihood(x, y, beta);
  let converged = false;
  let iterations = 0;
  for (; iterations < maxIterations && !converged; iterations++) {
    const p = fittedValues(x, beta);
    const grad = new Array<number>(k).fill(0);
    for (let i = 0; i < x.length; i++) for (let j = 0; j < k; j++) grad[j] += (y[i] - p[i]) * x[i][j];
    const inv = choleskyInverse(information(x, p));
    if (inv === null) {
      if (iterations === 0) throw new RangeError('the information matrix XᵀWX is singular');
      break; // fitted probabilities reached 0 or 1 numerically: separation
    }
    const step = inv.map((row) => row.reduce((s, v, j) => s + v * grad[j], 0));
    let scale = 1;
    let next = beta.map((b, j) => b + step[j]);
    let nextLl = logLikelihood(x, y, next);
    while (nextLl < ll - 1e-12 * Math.abs(ll) && scale > 1e-10) {
      scale /= 2;
      next = beta.map((b, j) => b + scale * step[j]);
      nextLl = logLikelihood(x, y, next);
    }
    const moved = Math.max(0, ...step.map((s, j) => Math.abs(scale * s) / (1 + Math.abs(beta[j]))));
    beta = next;
    ll = nextLl;
    if (moved < tolerance) converged = true;
  }
  const fitted = fittedValues(x, beta);
  const inv = choleskyInverse(information(x, fitted));
  return {
    beta,
    logLik: ll,
    fitted,
    hessianInverse: inv ?? [],
    iterations,
    converged: converged && inv !== null,
  };
}

/**
 * V = c · H⁻¹ (Σ_g s_g s_gᵀ) H⁻¹ with s_g the summed score (y_i − p_i) x_i of cluster g and
 * c = G/(G−1) · (N−1)/(N−K) (statsmodels' `cov_cluster(..., use_correction=True)`).
 */
export function clusterRobustCovariance(
  x: Matrix,
  y: readonly number[],
  fit: Pick<LogisticFit, 'fitted' | 'hessianInverse'>,
  groups: readonly string[],
  useCorrection = true,
): Matrix {
  const n = x.length;
  const k = x[0].length;
  const sums = new Map<string, number[]>();
  for (let i = 0; i < n; i++) {
    let s = sums.get(groups[i]);
    if (!s) sums.set(groups[i], (s = new Array<number>(k).fill(0)));
    const r = y[i] - fit.fitted[i];
    for (let j = 0; j < k; j++) s[j] += r * x[i][j];
  }
  const meat: Matrix = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (const s of sums.values())
    for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) meat[a][b] += s[a] * s[b];
  const g = sums.size;
  const c = useCorrection ? (g / (g - 1)) * ((n - 1) / (n - k)) : 1;
  const v = matMul(matMul(fit.hessianInverse, meat), fit.hessianInverse);
  return v.map((row) => row.map((value) => c * value));
}
