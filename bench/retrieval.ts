// `npm run bench -- retrieval`: scoring retrieval result rows (what `evalkit retrieval score` does per row).
// Target from the issue: scoring 100,000 result rows at ≥ 100,000 rows/s. The headline figure is the scorer
// (scoreResults: gold index, duplicate checks, metrics, verdicts, one new row per result) on parsed rows; the
// baseline, measured in the same run, is JSON.parse + JSON.stringify of the same lines with no scoring (the floor
// any JSONL tool pays), and end to end (parse + score + serialise) shows what the two add up to.
import { cpus, loadavg } from 'node:os';
import { scoreResults } from '../src/metrics/retrieval/score.js';
import { parseThresholds } from '../src/metrics/retrieval/thresholds.js';
import { createRng } from '../src/metrics/stats/rng.js';

function rate(rows: number, ms: number): string {
  return `${Math.round(rows / (ms / 1000)).toLocaleString('en')} rows/s`;
}

export async function run(): Promise<void> {
  const scale = Number(process.env.BENCH_SCALE ?? 1);
  const n = Math.round(100_000 * scale);
  const rng = createRng(7);
  const doc = (i: number) => `doc-${Math.floor(rng() * 50)}-${i % 97}`;
  const goldLines: string[] = [];
  const resultLines: string[] = [];
  for (let i = 0; i < n; i++) {
    const expected = [doc(i), doc(i), doc(i)];
    goldLines.push(
      JSON.stringify({
        schema_version: '0.1',
        id: `q${i}`,
        query: `query ${i}`,
        expected_ids: expected,
        layers: ['L1'],
        entities: [expected[0]],
      }),
    );
    const retrieved = Array.from({ length: 10 }, (_, r) => (rng() < 0.3 ? expected[r % 3] : doc(i)));
    resultLines.push(
      JSON.stringify({
        schema_version: '0.1',
        id: `q${i}`,
        request_id: `r${i}`,
        retrieved_ids: retrieved,
        metrics: {},
      }),
    );
  }
  const thresholds = parseThresholds({ thresholds: { p_at_5: 0.2, ndcg_10: 0.5, mrr_10: 0.5 } }).thresholds;
  const gold = goldLines.map((l, i) => ({ value: JSON.parse(l), line: i + 1 }));

  // Each figure is measured REPS times, as wall time and as this process's CPU time (on a shared, loaded machine the
  // CPU time is the cost; the wall time also counts waiting for a core); printed as best and median. The first run
  // of each includes JIT warm-up, which the best leaves out and the median mostly absorbs. Every scoring run
  // starts from the same parsed rows (scoreResults does not modify its input) and its output becomes garbage for
  // the next run to collect, as the CLI's output would: GC of the scored rows is part of the figure.
  const REPS = 5;
  const measure = (work: () => void) => {
    const walls: number[] = [];
    const cpus: number[] = [];
    for (let rep = 0; rep < REPS; rep++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      work();
      walls.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpus.push((c.user + c.system) / 1000);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    return {
      wall: Math.min(...walls),
      wallMedian: median(walls),
      cpu: Math.min(...cpus),
      cpuMedian: median(cpus),
    };
  };
  type Figures = ReturnType<typeof measure>;
  const describe = (m: Figures) =>
    `wall best ${(m.wall / 1000).toFixed(3)} s = ${rate(n, m.wall)}, median ${(m.wallMedian / 1000).toFixed(3)} s = ${rate(n, m.wallMedian)}; ` +
    `CPU best ${(m.cpu / 1000).toFixed(3)} s = ${rate(n, m.cpu)}, median ${rate(n, m.cpuMedian)} per CPU-second`;

  const baseline = measure(() => {
    for (const l of resultLines) JSON.stringify(JSON.parse(l));
  });
  const parsed = resultLines.map((l, i) => ({ value: JSON.parse(l), line: i + 1 }));
  let scoredCount = 0;
  const scoring = measure(() => {
    scoredCount = scoreResults(gold, parsed, { ks: [5, 10], thresholds }).scored;
  });
  const endToEnd = measure(() => {
    const rows = resultLines.map((l, i) => ({ value: JSON.parse(l), line: i + 1 }));
    for (const row of scoreResults(gold, rows, { ks: [5, 10], thresholds }).rows) JSON.stringify(row);
  });

  console.log(
    `retrieval scoring of ${n.toLocaleString('en')} rows (K = 5, 10; 3 thresholds; ${REPS} runs): ${describe(scoring)}`,
  );
  console.log(`  baseline parse + serialise only: ${describe(baseline)}`);
  console.log(`  end to end (parse + score + serialise): ${describe(endToEnd)}`);
  const ratio = (ms: number) => n / (ms / 1000) / 100_000;
  const verdict = (ms: number) => `${ratio(ms) >= 1 ? 'met' : 'MISSED'} (${ratio(ms).toFixed(2)}×)`;
  console.log(
    `  target ≥ 100,000 rows/s (scoring): median wall ${verdict(scoring.wallMedian)}, best wall ${verdict(scoring.wall)}, ` +
      `median per CPU-second ${verdict(scoring.cpuMedian)}; ${scoredCount} scored; ` +
      `load average ${loadavg()[0].toFixed(1)} on ${cpus().length} CPUs`,
  );
}
