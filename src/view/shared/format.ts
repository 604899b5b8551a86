// Numbers as the pages show them (also used by the tests that compare a page with the library's values).

/** A number for people: up to `digits` decimals, '—' when absent. */
export function fmt(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined || Number.isNaN(x)) return '—';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '−∞';
  if (Number.isInteger(x) && Math.abs(x) < 1e15) return x.toLocaleString('en-US');
  return x.toFixed(digits);
}

export function fmtP(p: number | null | undefined): string {
  if (p === null || p === undefined || Number.isNaN(p)) return '—';
  return p < 0.0001 ? p.toExponential(1) : p.toFixed(4);
}

export function fmtCi(ci: readonly [number, number] | null | undefined, digits = 3): string {
  return ci ? `[${fmt(ci[0], digits)}, ${fmt(ci[1], digits)}]` : '—';
}
