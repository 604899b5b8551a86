/**
 * Exact binomial random variates from a uniform [0, 1) generator, in O(1) expected time for large n:
 * inversion when n·min(p, 1−p) < 30, otherwise the BTPE acceptance/rejection algorithm of Kachitvichyanukul and
 * Schmeiser (1988, "Binomial random variate generation", CACM 31(2)), the method numpy uses for the same range.
 *
 * Why: the bootstrap of a mean over data with few distinct values (binary or levelled scores) is a multinomial
 * draw of the value counts, so one resample costs a few binomial draws instead of n uniform draws.
 */
export function binomial(rng: () => number, n: number, p: number): number {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  const r = Math.min(p, 1 - p);
  const y = n * r < 30 ? inversion(rng, n, r) : btpe(rng, n, r);
  return p > 0.5 ? n - y : y;
}

function inversion(rng: () => number, n: number, p: number): number {
  const q = 1 - p;
  const qn = Math.exp(n * Math.log(q));
  const np = n * p;
  const bound = Math.min(n, np + 10 * Math.sqrt(np * q + 1));
  for (;;) {
    let x = 0;
    let px = qn;
    let u = rng();
    while (u > px) {
      x++;
      if (x > bound) break;
      u -= px;
      px = ((n - x + 1) * p * px) / (x * q);
    }
    if (x <= bound) return x;
  }
}

function btpe(rng: () => number, n: number, r: number): number {
  const q = 1 - r;
  const fm = n * r + r;
  const m = Math.floor(fm);
  const p1 = Math.floor(2.195 * Math.sqrt(n * r * q) - 4.6 * q) + 0.5;
  const xm = m + 0.5;
  const xl = xm - p1;
  const xr = xm + p1;
  const c = 0.134 + 20.5 / (15.3 + m);
  let a = (fm - xl) / (fm - xl * r);
  const laml = a * (1 + a / 2);
  a = (xr - fm) / (xr * q);
  const lamr = a * (1 + a / 2);
  const p2 = p1 * (1 + 2 * c);
  const p3 = p2 + c / laml;
  const p4 = p3 + c / lamr;
  const nrq = n * r * q;

  for (;;) {
    const u = rng() * p4;
    let v = rng();
    let y: number;
    if (u <= p1) {
      // Triangular centre: accepted at once.
      return Math.floor(xm - p1 * v + u);
    }
    if (u <= p2) {
      const x = xl + (u - p1) / c;
      v = v * c + 1 - Math.abs(m - x + 0.5) / p1;
      if (v > 1) continue;
      y = Math.floor(x);
    } else if (u <= p3) {
      y = Math.floor(xl + Math.log(v) / laml);
      if (y < 0 || v === 0) continue;
      v = v * (u - p2) * laml;
    } else {
      y = Math.floor(xr - Math.log(v) / lamr);
      if (y > n || v === 0) continue;
      v = v * (u - p3) * lamr;
    }
    const k = Math.abs(y - m);
    if (k <= 20 || k >= nrq / 2 - 1) {
      // Explicit evaluation of f(y) / f(m) by recursion.
      const s = r / q;
      const aa = s * (n + 1);
      let f = 1;
      if (m < y) for (let i = m + 1; i <= y; i++) f *= aa / i - s;
      else if (m > y) for (let i = y + 1; i <= m; i++) f /= aa / i - s;
      if (v <= f) return y;
      continue;
    }
    // Squeeze on log f, then the Stirling-based bound.
    const rho = (k / nrq) * ((k * (k / 3 + 0.625) + 0.16666666666666666) / nrq + 0.5);
    const t = (-k * k) / (2 * nrq);
    const A = Math.log(v);
    if (A < t - rho) return y;
    if (A > t + rho) continue;
    const x1 = y + 1;
    const f1 = m + 1;
    const z = n + 1 - m;
    const w = n - y + 1;
    const x2 = x1 * x1;
    const f2 = f1 * f1;
    const z2 = z * z;
    const w2 = w * w;
    const stirling = (d: number, d2: number) =>
      (13680 - (462 - (132 - (99 - 140 / d2) / d2) / d2) / d2) / d / 166320;
    const bound =
      xm * Math.log(f1 / x1) +
      (n - m + 0.5) * Math.log(z / w) +
      (y - m) * Math.log((w * r) / (x1 * q)) +
      stirling(f1, f2) +
      stirling(z, z2) +
      stirling(x1, x2) +
      stirling(w, w2);
    if (A <= bound) return y;
  }
}
