// `npm run bench -- uncertainty`: the seeded percentile bootstrap of a mean over binary scores (what `evalkit stats`
// runs per evaluation result). Target from the issue: 10,000 resamples over 100,000 binary scores in < 2 s.
// Baseline in the same run: the generic item-by-item bootstrap (stats' bootstrapPercentile), timed on fewer
// resamples and extrapolated, since it would take far longer at full size.
import { meanBootstrap } from '../src/metrics/eee/uncertainty.js';
import { bootstrapPercentile } from '../src/metrics/stats/intervals.js';
import { mean } from '../src/metrics/stats/descriptive.js';
import { createRng } from '../src/metrics/stats/rng.js';

export async function run(): Promise<void> {
  const scale = Number(process.env.BENCH_SCALE ?? 1);
  const n = Math.round(100_000 * scale);
  const iterations = 10_000;
  const rng = createRng(42);
  const scores = Array.from({ length: n }, () => (rng() < 0.62 ? 1 : 0));

  const t0 = performance.now();
  const r = meanBootstrap(scores, { iterations, seed: 1 });
  const seconds = (performance.now() - t0) / 1000;

  const baselineIterations = 20;
  const t1 = performance.now();
  bootstrapPercentile(scores, (s) => mean(s), { iterations: baselineIterations, seed: 1 });
  const baselinePerResample = (performance.now() - t1) / 1000 / baselineIterations;
  const baselineSeconds = baselinePerResample * iterations;

  console.log(
    `bootstrap of the mean: ${iterations} resamples × ${n} binary scores in ${seconds.toFixed(3)} s ` +
      `(${Math.round(iterations / seconds).toLocaleString('en')} resamples/s, ` +
      `${Math.round((iterations * n) / seconds).toLocaleString('en')} items/s); CI [${r.lower.toFixed(5)}, ${r.upper.toFixed(5)}]`,
  );
  console.log(
    `  baseline item-by-item bootstrap: ${baselineSeconds.toFixed(1)} s extrapolated from ${baselineIterations} resamples ` +
      `(${(baselineSeconds / seconds).toFixed(0)}× slower)`,
  );
  console.log(
    `  target < 2 s: ${seconds < 2 ? 'met' : 'MISSED'} (${(2 / seconds).toFixed(1)}× under the limit)`,
  );
}
