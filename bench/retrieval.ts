// `npm run bench -- retrieval`: scoring retrieval result rows (what `evalkit retrieval score` does per row).
// Target from the issue: ≥ 100,000 rows/s. Figures: the scorer alone on parsed rows, and end to end per row
// (JSON.parse of the line + scoring + JSON.stringify of the filled row). Baseline in the same run: JSON.parse +
// JSON.stringify of the same lines with no scoring, the floor any JSONL tool pays.
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

  // Each figure: the best of three runs, as wall time and as this process's CPU time (on a shared, loaded machine
  // the CPU time is the cost; the wall time also counts waiting for a core).
  const measure = (work: () => void) => {
    let best = { wall: Infinity, cpu: Infinity };
    for (let rep = 0; rep < 3; rep++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      work();
      const wall = performance.now() - t0;
      const c = process.cpuUsage(c0);
      const cpu = (c.user + c.system) / 1000;
      if (wall < best.wall) best = { wall, cpu };
    }
    return best;
  };
  const describe = (m: { wall: number; cpu: number }) =>
    `${(m.wall / 1000).toFixed(3)} s wall, ${rate(n, m.wall)}; ${(m.cpu / 1000).toFixed(3)} s CPU, ${rate(n, m.cpu)} per CPU-second`;

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
    `retrieval scoring of ${n.toLocaleString('en')} rows (K = 5, 10; 3 thresholds): ${describe(scoring)}`,
  );
  console.log(`  end to end (parse + score + serialise): ${describe(endToEnd)}`);
  console.log(`  baseline parse + serialise only: ${describe(baseline)}`);
  const wallRate = n / (scoring.wall / 1000);
  const cpuRate = n / (scoring.cpu / 1000);
  console.log(
    `  target ≥ 100,000 rows/s (scoring): ${wallRate >= 100_000 ? 'met' : 'MISSED'} on wall time (${(wallRate / 100_000).toFixed(1)}×), ` +
      `${cpuRate >= 100_000 ? 'met' : 'MISSED'} per CPU-second (${(cpuRate / 100_000).toFixed(1)}×); ${scoredCount} scored; ` +
      `load average ${loadavg()[0].toFixed(1)} on ${cpus().length} CPUs`,
  );
}
