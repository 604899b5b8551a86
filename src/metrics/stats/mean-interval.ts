/** The CLT interval of a mean: x̄ ± z_{1−α/2} · s/√n (s with n − 1). Null when n < 2. */
import { normalQuantile } from './normal.js';

export function cltInterval(
  mean: number,
  sd: number,
  n: number,
  confidence = 0.95,
): { lower: number; upper: number; se: number } | null {
  if (!(n >= 2) || !Number.isFinite(sd)) return null;
  const se = sd / Math.sqrt(n);
  const z = normalQuantile(1 - (1 - confidence) / 2);
  return { lower: mean - z * se, upper: mean + z * se, se };
}
