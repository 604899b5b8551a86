/**
 * The score-versus-cost boards of the viewer: each leaderboard (`evalkit leaderboard --show cost`, the same ranking
 * and the same costs) as points of score and cost, the Pareto front marked (store/costs.ts). The cost axis is per
 * sample when every model with a cost has one per sample (models that ran different numbers of samples compare
 * fairly), else the total.
 */
import type { Store } from '../store/db.js';
import { paretoFront } from '../store/costs.js';
import { leaderboards, type LeaderboardOptions } from '../store/leaderboard.js';
import type { CostBoard, CostBoards } from './shared/types.js';

export async function costBoards(
  store: Store,
  filters: Pick<LeaderboardOptions, 'benchmark' | 'metric'> = {},
): Promise<CostBoards> {
  const { leaderboards: boards } = await leaderboards(store, { ...filters, show: ['cost'] });
  return {
    boards: boards.map((b): CostBoard => {
      const costed = b.rows.filter((r) => r.cost != null);
      const axis = costed.every((r) => r.cost!.per_sample_usd !== null) ? 'per_sample' : 'total';
      const points = b.rows.map((r) => {
        const cost = r.cost ?? null;
        return {
          model_id: r.model_id,
          score: r.score,
          ci: r.ci,
          cost_usd: cost === null ? null : axis === 'per_sample' ? cost.per_sample_usd : cost.total_usd,
          total_usd: cost?.total_usd ?? null,
          per_sample_usd: cost?.per_sample_usd ?? null,
          pareto: false,
          evaluation_id: r.evaluation_id,
          record_key: r.record_key,
        };
      });
      for (const i of paretoFront(
        points.map((p) => ({ cost: p.cost_usd, score: p.score })),
        b.lower_is_better,
      ))
        points[i]!.pareto = true;
      return { benchmark: b.benchmark, metric: b.metric, lower_is_better: b.lower_is_better, axis, points };
    }),
  };
}
