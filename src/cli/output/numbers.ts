// Numbers as the store commands print them in text and Markdown (JSON and CSV keep full precision).

/** A score or difference: 4 decimals below 10, 2 below 10,000, else 6 significant digits; "n/a" for null. */
export function formatNumber(x: number | null | undefined, signed = false): string {
  if (x === null || x === undefined || Number.isNaN(x)) return 'n/a';
  const a = Math.abs(x);
  const text = a < 10 ? x.toFixed(4) : a < 10_000 ? x.toFixed(2) : x.toPrecision(6);
  return signed && x >= 0 ? `+${text}` : text;
}

/** A p-value: 3 significant digits, "< 1e-16" below double resolution. */
export function formatP(p: number | null | undefined): string {
  if (p === null || p === undefined || Number.isNaN(p)) return 'n/a';
  if (p < 1e-16) return '< 1e-16';
  return p < 0.001 ? p.toExponential(2) : p.toPrecision(3);
}

export function formatInterval(ci: readonly [number, number] | null, signed = false): string {
  return ci === null ? 'n/a' : `[${formatNumber(ci[0], signed)}, ${formatNumber(ci[1], signed)}]`;
}

/** US dollars: 4 significant digits below $1 (costs per sample are often micro-dollars), else cents. */
export function formatUsd(x: number | null | undefined): string {
  if (x === null || x === undefined || Number.isNaN(x)) return 'n/a';
  if (x === 0) return '$0';
  return x < 1 ? `$${Number(x.toPrecision(4))}` : `$${x.toFixed(2)}`;
}
