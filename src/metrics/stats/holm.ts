/**
 * Holm's step-down adjustment of m p-values: sorted ascending p_(1) ≤ … ≤ p_(m), adjusted
 * p̃_(i) = max_{j ≤ i} min(1, (m − j + 1)·p_(j)). Nulls (tests that could not be run) are kept null and do not count
 * towards m.
 */
export function holmAdjust(pValues: readonly (number | null)[]): (number | null)[] {
  const present = pValues
    .map((p, index) => ({ p, index }))
    .filter((x): x is { p: number; index: number } => x.p !== null && !Number.isNaN(x.p))
    .sort((x, y) => x.p - y.p || x.index - y.index);
  const m = present.length;
  const adjusted: (number | null)[] = pValues.map(() => null);
  let running = 0;
  present.forEach(({ p, index }, i) => {
    running = Math.max(running, Math.min(1, (m - i) * p));
    adjusted[index] = running;
  });
  return adjusted;
}
