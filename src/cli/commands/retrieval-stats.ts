/**
 * `leaderboard --retrieval` and `compare --retrieval`: retrieval systems from the store's retrieval_results,
 * printed in the shapes of `leaderboard` and `compare` (same JSON fields, plus each system's identity).
 */
import { DataError, UsageError } from '../../errors.js';
import type { RetrievalCompareReport, RetrievalLeaderboard } from '../../store/retrieval/stats.js';
import type { CliIO } from '../context.js';
import { csvTable, markdownTable, textTable } from '../../report/tables.js';
import { formatInterval, formatNumber, formatP } from '../output/numbers.js';
import { dbPathOf, json } from '../options.js';

/**
 * The store file a `--retrieval` read opens: a lake keeps no retrieval tables (`ingest --lake` refuses retrieval
 * files), so `--lake` with `--retrieval` is refused rather than read as the default store.
 */
function retrievalStoreOf(flags: { db?: string; lake?: string }, io: CliIO): string {
  if (flags.lake !== undefined)
    throw new UsageError(
      'usage.lake-retrieval',
      '--retrieval reads a store file (--db): a lake keeps evaluation records only, no retrieval tables (docs/lake.md)',
    );
  return dbPathOf(flags.db, io);
}

const HEADER = ['rank', 'tier', 'system', 'score', '95% CI', 'CI method', 'n queries'];

function cells(board: RetrievalLeaderboard): string[][] {
  return board.rows.map((r) => [
    String(r.rank),
    String(r.tier),
    r.system,
    formatNumber(r.score),
    formatInterval(r.ci),
    r.ci_method ?? '',
    String(r.n),
  ]);
}

export async function retrievalLeaderboardCommand(
  io: CliIO,
  flags: { db?: string; lake?: string; metric?: string; format: 'text' | 'markdown' | 'csv' | 'json' },
): Promise<number> {
  const { openStore } = await import('../../store/db.js');
  const { retrievalLeaderboards } = await import('../../store/retrieval/stats.js');
  const store = await openStore(retrievalStoreOf(flags, io), { readOnly: true });
  let boards: RetrievalLeaderboard[];
  try {
    boards = await retrievalLeaderboards(store, { metric: flags.metric });
  } finally {
    store.close();
  }
  if (flags.format === 'json') io.stdout.write(json({ leaderboards: boards }));
  else if (boards.length === 0)
    io.stdout.write('no retrieval result rows in the store (ingest a results file)\n');
  else if (flags.format === 'csv')
    io.stdout.write(
      csvTable(
        ['metric', ...HEADER],
        boards.flatMap((b) => cells(b).map((row) => [b.metric, ...row])),
      ),
    );
  else
    io.stdout.write(
      boards
        .map((b) => {
          const title = `retrieval · ${b.metric} (${b.lower_is_better ? 'lower' : 'higher'} is better)`;
          return flags.format === 'markdown'
            ? `### ${title}\n\n${markdownTable(HEADER, cells(b))}`
            : `${title}\n${textTable(HEADER, cells(b))}`;
        })
        .join('\n'),
    );
  return 0;
}

function renderCompare(report: RetrievalCompareReport): string {
  const out = [`${report.model_a} (A) vs ${report.model_b} (B), paired on common gold queries`];
  for (const c of report.comparisons) {
    out.push('');
    const direction = c.lower_is_better ? 'lower' : 'higher';
    if (!c.paired) {
      out.push(`retrieval · ${c.metric} (${direction} is better): not compared — ${c.reason}`);
      continue;
    }
    out.push(
      `retrieval · ${c.metric} (${direction} is better): ${c.n_paired} common queries ` +
        `(${c.n_unpaired_a} only in A, ${c.n_unpaired_b} only in B)`,
    );
    out.push(
      `  mean A ${formatNumber(c.mean_a)}  mean B ${formatNumber(c.mean_b)}  difference A − B ${formatNumber(c.difference, true)}`,
    );
    if (c.reason) out.push(`  t test: n/a — ${c.reason}`);
    else
      out.push(
        `  SE ${formatNumber(c.se)}  95% CI ${formatInterval(c.ci, true)} (t, ${c.df} df)  p ${formatP(c.p_value)}  Holm p ${formatP(c.p_holm)}`,
      );
    if (c.sign_test)
      out.push(
        `  ${c.mcnemar ? 'McNemar' : 'sign test'}: A higher on ${c.sign_test.a_higher}, B higher on ${c.sign_test.b_higher}, exact p ${formatP(c.sign_test.p_value)}`,
      );
    if (c.bootstrap)
      out.push(
        `  bootstrap: ${c.bootstrap.resamples} resamples, seed ${c.bootstrap.seed}, 95% CI ${formatInterval(c.bootstrap.ci, true)}`,
      );
    const p = c.p_holm ?? (c.reason ? c.sign_test?.p_value : null) ?? null;
    const aBetter = c.difference !== null && (c.lower_is_better ? c.difference < 0 : c.difference > 0);
    out.push(
      p === null
        ? '  → no test possible'
        : p >= 0.05
          ? `  → no significant difference (p ${formatP(p)} ≥ 0.05)`
          : `  → ${aBetter ? report.model_a : report.model_b} is better (p ${formatP(p)} < 0.05)`,
    );
  }
  return out.join('\n') + '\n';
}

export async function retrievalCompareCommand(
  io: CliIO,
  a: string,
  b: string,
  flags: {
    db?: string;
    lake?: string;
    metric?: string;
    bootstrap?: number;
    seed?: number;
    format: 'text' | 'json';
  },
): Promise<number> {
  const { openStore } = await import('../../store/db.js');
  const { compareRetrievalSystems } = await import('../../store/retrieval/stats.js');
  const store = await openStore(retrievalStoreOf(flags, io), { readOnly: true });
  let report: RetrievalCompareReport;
  try {
    report = await compareRetrievalSystems(store, a, b, {
      metric: flags.metric,
      bootstrap: flags.bootstrap,
      seed: flags.seed,
    });
  } finally {
    store.close();
  }
  if (report.comparisons.every((c) => !c.paired))
    throw new DataError(
      'store.nothing-to-compare',
      `${report.model_a} and ${report.model_b} share no gold query`,
    );
  io.stdout.write(flags.format === 'json' ? json(report) : renderCompare(report));
  return 0;
}
