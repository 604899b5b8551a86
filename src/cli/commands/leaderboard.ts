import { Option } from 'commander';
import type {
  Leaderboard,
  CompositeRow,
  LeaderboardOptions,
  LeaderboardRow,
} from '../../store/leaderboard.js';
import type { CommandModule } from '../context.js';
import { csvTable, markdownTable, textTable } from '../../report/tables.js';
import { formatInterval, formatNumber, formatUsd } from '../output/numbers.js';
import { UsageError } from '../../errors.js';
import { addDbOption, addLakeOption, storeTargetOf, lakeWarnings, json } from '../options.js';
import { retrievalLeaderboardCommand } from './retrieval-stats.js';

interface LeaderboardFlags extends Omit<LeaderboardOptions, 'show'> {
  show?: string;
  db?: string;
  lake?: string;
  retrieval?: boolean;
  format: 'text' | 'markdown' | 'csv' | 'json';
}

const HEADER = ['rank', 'tier', 'model', 'score', '95% CI', 'CI method', 'n', 'source', 'date'];
const COST_HEADER = ['cost', 'cost/sample'];
/** The columns `--show` adds. */
const SHOWABLE = ['cost'] as const;

/** A result's cost as the table shows it: "no cost" when it states none, never 0. */
function costCells(r: LeaderboardRow): string[] {
  const c = r.cost;
  if (c === null || c === undefined) return ['no cost', 'no cost'];
  const partial =
    c.priced_samples !== null && c.samples !== null && c.priced_samples < c.samples
      ? ` (${c.priced_samples} of ${c.samples} rows)`
      : c.from === 'record'
        ? ' (record)'
        : '';
  return [`${formatUsd(c.total_usd)}${partial}`, formatUsd(c.per_sample_usd)];
}

function cells(board: Leaderboard, withCost = false): string[][] {
  return board.rows.map((r) => [
    String(r.rank),
    String(r.tier),
    r.run_status === 'complete' ? r.model_id : `${r.model_id} [run ${r.run_status}]`,
    formatNumber(r.score),
    formatInterval(r.ci),
    r.ci_method === null ? '' : `${r.ci_method}${r.ci_clipped ? ', clipped' : ''}`,
    `${r.n === null ? '' : String(r.n)}${r.disagreement ? ' !' : ''}`,
    r.source ?? '',
    r.date ?? 'unknown',
    ...(withCost ? costCells(r) : []),
  ]);
}

/** The results whose rows disagree with their source, one line each under the table (their n is marked "!"). */
const disagreements = (b: Leaderboard): string =>
  b.rows
    .filter((r) => r.disagreement)
    .map((r) => `! ${r.model_id}: ${r.disagreement}\n`)
    .join('');

const title = (b: Leaderboard) =>
  `${b.benchmark} · ${b.metric} (${b.lower_is_better ? 'lower' : 'higher'} is better` +
  `${b.direction_assumed ? '; direction assumed, not declared by the source: the ranking may be reversed' : ''})`;

const compositeCells = (rows: CompositeRow[]) =>
  rows.map((r) => [String(r.rank), r.model_id, r.mean_win_rate.toFixed(4), String(r.benchmarks)]);
const COMPOSITE_HEADER = ['rank', 'model', 'mean win rate', 'benchmarks'];

function render(
  format: LeaderboardFlags['format'],
  result: { leaderboards: Leaderboard[]; composite?: CompositeRow[] },
  withCost = false,
): string {
  const { leaderboards, composite } = result;
  const header = withCost ? [...HEADER, ...COST_HEADER] : HEADER;
  const costColumns = withCost
    ? ['cost_usd', 'cost_per_sample_usd', 'cost_priced_rows', 'cost_rows', 'cost_from']
    : [];
  switch (format) {
    case 'json':
      return json(result);
    case 'csv':
      if (composite)
        return csvTable(
          ['rank', 'model_id', 'mean_win_rate', 'benchmarks'],
          composite.map((r) => [r.rank, r.model_id, r.mean_win_rate, r.benchmarks]),
        );
      return csvTable(
        [
          'benchmark',
          'metric',
          'lower_is_better',
          'rank',
          'tier',
          'model_id',
          'developer',
          'score',
          'ci_lower',
          'ci_upper',
          'ci_method',
          'n',
          'evaluation_id',
          'record_key',
          'source',
          'date',
          'ci_clipped',
          'direction_assumed',
          'run_status',
          'disagreement',
          ...costColumns,
        ],
        leaderboards.flatMap((b) =>
          b.rows.map((r) => [
            b.benchmark,
            b.metric,
            b.lower_is_better,
            r.rank,
            r.tier,
            r.model_id,
            r.developer,
            r.score,
            r.ci?.[0] ?? null,
            r.ci?.[1] ?? null,
            r.ci_method,
            r.n,
            r.evaluation_id,
            r.record_key,
            r.source,
            r.date,
            r.ci_clipped,
            b.direction_assumed,
            r.run_status,
            r.disagreement,
            ...(withCost
              ? [
                  r.cost?.total_usd ?? null,
                  r.cost?.per_sample_usd ?? null,
                  r.cost?.priced_samples ?? null,
                  r.cost?.samples ?? null,
                  r.cost?.from ?? null,
                ]
              : []),
          ]),
        ),
      );
    case 'markdown': {
      const parts = leaderboards.map(
        (b) =>
          `## ${title(b)}\n\n${markdownTable(header, cells(b, withCost))}${disagreements(b) ? `\n${disagreements(b)}` : ''}`,
      );
      if (composite)
        parts.push(
          `## Composite: mean win rate\n\n${markdownTable(COMPOSITE_HEADER, compositeCells(composite))}`,
        );
      return parts.join('\n');
    }
    default: {
      const parts = leaderboards.map(
        (b) =>
          `${title(b)}\n${textTable(header, cells(b, withCost), [0, 1, 3, 6, ...(withCost ? [9, 10] : [])])}${disagreements(b)}`,
      );
      if (composite)
        parts.push(
          `composite: mean win rate\n${textTable(COMPOSITE_HEADER, compositeCells(composite), [0, 2, 3])}`,
        );
      return parts.join('\n');
    }
  }
}

/** `--show a,b`: each a column SHOWABLE names. */
function showColumns(value: string | undefined): (typeof SHOWABLE)[number][] {
  if (value === undefined) return [];
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const name of names)
    if (!(SHOWABLE as readonly string[]).includes(name))
      throw new UsageError(
        'usage.bad-option',
        `--show: unknown column "${name}" (one of: ${SHOWABLE.join(', ')})`,
      );
  return names as (typeof SHOWABLE)[number][];
}

export const leaderboardCommand: CommandModule = {
  register(program, io, run) {
    const command = program
      .command('leaderboard')
      .summary('models ranked per benchmark and metric, with 95% CIs and significance tiers')
      .description(
        'Per benchmark (evaluation_name) and metric in the store: the models ranked by score (descending, or\n' +
          'ascending when lower_is_better), each with n, a 95% CI, the source and the date. One result per model:\n' +
          'that of its most recently retrieved record. The CI comes from the instance rows when the result has\n' +
          'them (Wilson for 0/1 scores, else mean ± 1.96·sd/√n; the epochs of a sample reduced first by the\n' +
          "source's epoch reducer, so n counts samples), else from the record's own uncertainty (its confidence\n" +
          'interval, else ± 1.96 standard errors). The CI method column names which; an interval never leaves the\n' +
          'metric\'s bounds (an end set to a bound is marked "clipped"). The record page of `evalkit view` shows the\n' +
          'same interval. A metric whose direction the converter guessed says "direction assumed".\n\n' +
          'Only finished runs are ranked: a run that stopped early (an Inspect log with status error, cancelled\n' +
          'or started; run_status "partial") is left out; --include-partial ranks it too, marked with its status\n' +
          '("model [run error]"), and a zero-width CI of such a run is not shown as a measurement.\n\n' +
          'Tiers: a model whose difference from the model ranked directly above it is not significant (paired t\n' +
          'test on the samples both have, else a z test on the two standard errors; Holm-adjusted over the gaps of\n' +
          "one leaderboard, α = 0.05) shares that model's tier; a significant gap starts the next tier.\n\n" +
          '--composite adds the mean win rate across benchmarks (HELM): on each leaderboard a model wins against\n' +
          'every model it outscores (ties count one half), divided by the other models; averaged over its\n' +
          'leaderboards. With --format csv and --composite only the composite table is printed.\n\n' +
          '--show cost adds what each result cost in US dollars, in total and per sample: the sum of its instance\n' +
          "rows' metadata.cost (evalkit run --prices, Inspect's total_cost, promptfoo's cost; rows of one call\n" +
          'counted once), else the record\'s total_cost_usd; a result that states none says "no cost" (null in JSON).\n\n' +
          'Exit codes: 0 ok (also when nothing matches the filters), 2 usage or I/O error (no store, unknown\n' +
          'benchmark or metric).',
      )
      .option('--benchmark <name>', 'only this benchmark (evaluation_name)')
      .option('--metric <name>', 'only this metric (metric_name, else metric_id)')
      .option('--developer <name>', 'only models of this developer (model_info.developer)')
      .option('--deployment-type <type>', 'only this deployment type (e.g. api, open_weights)')
      .option('--availability <value>', 'only this model availability')
      .option('--source-organization <name>', 'only records from this source organization')
      .option('--collection <name>', 'only records of this datastore collection')
      .option('--composite', 'add the composite mean win rate across benchmarks')
      .option('--include-partial', 'rank unfinished runs too (error, cancelled, started), marked')
      .option(
        '--show <columns>',
        "more columns, comma-separated: cost (each result's US dollars in total and per sample, from the rows' metadata.cost, else the record's total_cost_usd; \"no cost\" when it states none)",
      )
      .option(
        '--retrieval',
        'rank retrieval systems (model_id, tool_id, layer, agent_id) from retrieval result rows',
      )
      .addOption(
        new Option('-f, --format <format>', 'output format')
          .choices(['text', 'markdown', 'csv', 'json'])
          .default('text'),
      );
    addLakeOption(addDbOption(command)).action((flags: LeaderboardFlags) =>
      run(async () => {
        if (flags.retrieval) return retrievalLeaderboardCommand(io, flags);
        const show = showColumns(flags.show);
        const { withReadStore } = await import('../../store/open.js');
        const { leaderboards } = await import('../../store/leaderboard.js');
        const result = await withReadStore(storeTargetOf(flags, io), lakeWarnings(io), (store) =>
          leaderboards(store, {
            benchmark: flags.benchmark,
            metric: flags.metric,
            developer: flags.developer,
            deploymentType: flags.deploymentType,
            availability: flags.availability,
            sourceOrganization: flags.sourceOrganization,
            collection: flags.collection,
            composite: flags.composite,
            includePartial: flags.includePartial,
            show,
          }),
        );
        if (result.leaderboards.length === 0 && flags.format === 'text')
          io.stdout.write('no results match (the store is empty or the filters exclude every result)\n');
        else io.stdout.write(render(flags.format, result, show.includes('cost')));
        if (result.unranked_partial_runs !== undefined && flags.format !== 'json')
          io.stderr.write(
            `note: ${result.unranked_partial_runs} unfinished run(s) (error, cancelled, started) not ranked; --include-partial ranks them, marked\n`,
          );
        return 0;
      }),
    );
  },
};
