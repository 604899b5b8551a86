// `evalkit model` at scale: the factor-effects logistic regression over 20,000 items × 5 samples (100,000 rows;
// BENCH_SCALE multiplies the items) with three factors of 2, 3 and 4 levels (7 parameters). Baseline measured in
// the same run: one pass that builds the same rows and sums the agreement (the floor any fit over them must pay),
// so the ratio is the cost of Newton iterations, the clustered sandwich and the Wald tests.
import { createRng } from '../src/metrics/stats/rng.js';
import {
  fitFactorModel,
  panelPlurality,
  type FactorModelBenchmark,
  type FactorModelEvaluation,
} from '../src/metrics/infereval/factor-model.js';

function best<T>(runs: number, fn: () => T): { seconds: number; value: T } {
  let out: { seconds: number; value: T } | undefined;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    const value = fn();
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    if (!out || seconds < out.seconds) out = { seconds, value };
  }
  return out!;
}

export async function run(): Promise<void> {
  const scale = Number(process.env.BENCH_SCALE ?? '1') || 1;
  const nItems = Math.round(20_000 * scale);
  const rng = createRng(7);
  const factors = { a: ['a0', 'a1'], b: ['b0', 'b1', 'b2'], c: ['c0', 'c1', 'c2', 'c3'] };
  const bench: FactorModelBenchmark = { id: 'bench', analysts: [{ id: 'x' }], factors, items: [] };
  const eta: FactorModelEvaluation = { id: 'eta', items: [] };
  const benchItems: FactorModelBenchmark['items'][number][] = [];
  const etaItems: FactorModelEvaluation['items'][number][] = [];
  for (let i = 0; i < nItems; i++) {
    const [ia, ib, ic] = [i % 2, Math.floor(i / 2) % 3, Math.floor(i / 6) % 4];
    const levels = { a: factors.a[ia], b: factors.b[ib], c: factors.c[ic] };
    const logit = 0.8 - 0.6 * ia - 0.3 * ib + 0.2 * ic + (rng() - 0.5);
    const p = 1 / (1 + Math.exp(-logit));
    benchItems.push({ id: `i${i}`, analyst_verdicts: ['good'], factor_levels: levels });
    etaItems.push({
      id: `i${i}`,
      samples: Array.from({ length: 5 }, () => ({
        parsed_verdict:
          rng() < 0.05 ? ('abstain' as const) : rng() < p ? ('good' as const) : ('bad' as const),
      })),
    });
  }
  bench.items = benchItems;
  eta.items = etaItems;
  const baseline = best(3, () => {
    let agree = 0;
    const rows: unknown[] = [];
    for (const it of etaItems) {
      const ref = panelPlurality(['good']);
      for (const s of it.samples ?? []) {
        if (s.parsed_verdict === 'abstain') continue;
        rows.push([it.id, s.parsed_verdict === ref ? 1 : 0]);
        if (s.parsed_verdict === ref) agree++;
      }
    }
    return agree + rows.length;
  }).seconds;
  const fit = best(3, () => fitFactorModel(eta, bench));
  console.log(
    `model fit over ${fit.value.n_observations.toLocaleString('en-US')} rows, ${fit.value.n_items.toLocaleString('en-US')} clusters, ${fit.value.n_parameters} parameters: ` +
      `${fit.seconds.toFixed(3)} s (${fit.value.iterations} Newton steps)   baseline ${baseline.toFixed(3)} s (×${(fit.seconds / baseline).toFixed(1)})`,
  );
}
