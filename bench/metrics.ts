// Cohen's κ_C and Fleiss' κ_F over 1,000,000 items (BENCH_SCALE multiplies the count). Target from the issue:
// < 0.5 s each. Baseline measured in the same run: one pass that only counts the model's verdicts over the same
// arrays (the floor any κ over these arrays must pay), so the ratio shows the cost of the κ arithmetic itself.
import { createRng } from '../src/metrics/stats/rng.js';
import { cohensKappa, fleissKappa } from '../src/metrics/stats/kappa.js';
import {
  consensusVerdict,
  evaluationMetrics,
  type ItemLike,
  type Verdict,
} from '../src/metrics/infereval/index.js';

function time<T>(fn: () => T): { seconds: number; value: T } {
  const start = process.hrtime.bigint();
  const value = fn();
  return { seconds: Number(process.hrtime.bigint() - start) / 1e9, value };
}

function best<T>(runs: number, fn: () => T): { seconds: number; value: T } {
  let result = time(fn);
  for (let i = 1; i < runs; i++) {
    const r = time(fn);
    if (r.seconds < result.seconds) result = r;
  }
  return result;
}

export async function run(): Promise<void> {
  const scale = Number(process.env.BENCH_SCALE ?? '1') || 1;
  const n = Math.round(1_000_000 * scale);
  const m = 3;
  const rng = createRng(2026);
  const pick = (): Verdict => {
    const u = rng();
    return u < 0.45 ? 'good' : u < 0.9 ? 'bad' : 'abstain';
  };
  const model: Verdict[] = new Array(n);
  const reference: Verdict[] = new Array(n);
  const rows: Verdict[][] = new Array(n);
  for (let i = 0; i < n; i++) {
    const analysts = [pick(), pick(), pick()];
    model[i] = pick();
    reference[i] = consensusVerdict(analysts);
    rows[i] = [...analysts, model[i]!];
  }
  const perSecond = (s: number): string => `${Math.round(n / s).toLocaleString('en-US')} items/s`;
  const line = (label: string, s: number, baseline: number): void =>
    console.log(
      `${label.padEnd(34)} ${s.toFixed(3)} s  ${perSecond(s).padStart(20)}   baseline ${baseline.toFixed(3)} s (×${(s / baseline).toFixed(1)})   target < 0.5 s: ${s < 0.5 ? 'met' : 'MISSED'}`,
    );

  const baseline = best(3, () => {
    let good = 0;
    for (let i = 0; i < n; i++) if (model[i] === 'good') good++;
    return good;
  }).seconds;
  const kc = best(3, () => cohensKappa(model, reference));
  line(`κ_C over ${n.toLocaleString('en-US')} items`, kc.seconds, baseline);
  const kf = best(3, () => fleissKappa(rows));
  const rowBaseline = best(3, () => {
    let good = 0;
    for (let i = 0; i < n; i++) for (let j = 0; j <= m; j++) if (rows[i]![j] === 'good') good++;
    return good;
  }).seconds;
  line(`κ_F over ${n.toLocaleString('en-US')} items (k = ${m + 1})`, kf.seconds, rowBaseline);

  // The whole report (coverage, κs, κ_F*, dispersion per item) on the same η, for scale.
  const items: ItemLike[] = model.map((v, i) => ({
    id: `i${i}`,
    analyst_verdicts: rows[i]!.slice(0, m),
    model_verdict: v,
  }));
  const lean = time(() => evaluationMetrics({ items }, { includeVerdictDistributions: false }));
  console.log(
    `metrics report without per-item distributions   ${lean.seconds.toFixed(3)} s  ${perSecond(lean.seconds).padStart(20)}`,
  );
  const full = time(() => evaluationMetrics({ items }));
  console.log(
    `full metrics report (${n.toLocaleString('en-US')} items)   ${full.seconds.toFixed(3)} s  ${perSecond(full.seconds).padStart(20)}   (κ_C ${full.value.cohens_kappa_consensus?.toFixed(4)})`,
  );
}
