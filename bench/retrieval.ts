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

  const tb = performance.now();
  let bytes = 0;
  for (const l of resultLines) bytes += JSON.stringify(JSON.parse(l)).length;
  const baselineMs = performance.now() - tb;

  const parsed = resultLines.map((l, i) => ({ value: JSON.parse(l), line: i + 1 }));
  const ts = performance.now();
  let outcome: ReturnType<typeof scoreResults> | undefined = scoreResults(gold, parsed, {
    ks: [5, 10],
    thresholds,
  });
  const scoreMs = performance.now() - ts;
  const scoredCount = outcome.scored;
  outcome = undefined; // let the collector reclaim it before the end-to-end run

  const te = performance.now();
  const rows = resultLines.map((l, i) => ({ value: JSON.parse(l), line: i + 1 }));
  const scored = scoreResults(gold, rows, { ks: [5, 10], thresholds });
  let outBytes = 0;
  for (const row of scored.rows) outBytes += JSON.stringify(row).length;
  const endMs = performance.now() - te;

  console.log(
    `retrieval scoring of ${n.toLocaleString('en')} rows (K = 5, 10; 3 thresholds): ${(scoreMs / 1000).toFixed(3)} s, ${rate(n, scoreMs)}`,
  );
  console.log(
    `  end to end (parse + score + serialise): ${(endMs / 1000).toFixed(3)} s, ${rate(n, endMs)} (${outBytes > bytes ? 'rows grew with metrics' : ''})`,
  );
  console.log(
    `  baseline parse + serialise only: ${(baselineMs / 1000).toFixed(3)} s, ${rate(n, baselineMs)}`,
  );
  const perSecond = n / (endMs / 1000);
  console.log(
    `  target ≥ 100,000 rows/s end to end: ${perSecond >= 100_000 ? 'met' : 'MISSED'} (${(perSecond / 100_000).toFixed(1)}× the target); ${scoredCount} scored; load average ${loadavg()[0].toFixed(1)} on ${cpus().length} CPUs (figures scale with the share of CPU this process got)`,
  );
}
