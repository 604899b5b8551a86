import type { CommandModule } from '../context.js';

/**
 * A sub-command as the registry knows it: the name it has on the command line (a group's name, such as `survey`,
 * for each of the modules that add to it) and its module, loaded only when that name is called (or for `--help`,
 * which lists them all). Nothing else is imported at start-up: a command costs its own code and nothing more.
 */
export interface CommandEntry {
  name: string;
  load: () => Promise<CommandModule>;
}

/**
 * Every sub-command, one module file each, in the order `evalkit --help` lists them. A new command is its module
 * (`export const xCommand: CommandModule = { register(program, io, run) { ... } }`) and one line here.
 */
export const commandEntries: CommandEntry[] = [
  { name: 'validate', load: () => import('./validate.js').then((m) => m.validateCommand) },
  { name: 'schema', load: () => import('./schema.js').then((m) => m.schemaCommand) },
  { name: 'migrate', load: () => import('./migrate.js').then((m) => m.migrateCommand) },
  { name: 'paths', load: () => import('./paths.js').then((m) => m.pathsCommand) },
  { name: 'hash', load: () => import('./hash.js').then((m) => m.hashCommand) },
  { name: 'evaluate', load: () => import('./evaluate.js').then((m) => m.evaluateCommand) },
  { name: 'sweep', load: () => import('./sweep.js').then((m) => m.sweepCommand) },
  { name: 'run', load: () => import('./run.js').then((m) => m.runCommand) },
  { name: 'describe', load: () => import('./describe.js').then((m) => m.describeCommand) },
  { name: 'bearers-import', load: () => import('./bearers-import.js').then((m) => m.bearersImportCommand) },
  { name: 'metrics', load: () => import('./metrics.js').then((m) => m.metricsCommand) },
  { name: 'retest', load: () => import('./retest.js').then((m) => m.retestCommand) },
  { name: 'compare-runs', load: () => import('./compare-runs.js').then((m) => m.compareRunsCommand) },
  { name: 'audit', load: () => import('./audit.js').then((m) => m.auditCommand) },
  { name: 'monotonicity', load: () => import('./monotonicity.js').then((m) => m.monotonicityCommand) },
  { name: 'structure', load: () => import('./structure.js').then((m) => m.structureCommand) },
  { name: 'model', load: () => import('./model.js').then((m) => m.modelCommand) },
  { name: 'report', load: () => import('./report.js').then((m) => m.reportCommand) },
  { name: 'retrieval', load: () => import('./retrieval.js').then((m) => m.retrievalCommand) },
  { name: 'stats', load: () => import('./stats.js').then((m) => m.statsCommand) },
  { name: 'convert', load: () => import('./convert.js').then((m) => m.convertCommand) },
  { name: 'ingest', load: () => import('./ingest.js').then((m) => m.ingestCommand) },
  { name: 'query', load: () => import('./query.js').then((m) => m.queryCommand) },
  { name: 'leaderboard', load: () => import('./leaderboard.js').then((m) => m.leaderboardCommand) },
  { name: 'compare', load: () => import('./compare.js').then((m) => m.compareCommand) },
  { name: 'reconcile', load: () => import('./reconcile.js').then((m) => m.reconcileCommand) },
  { name: 'models', load: () => import('./models.js').then((m) => m.modelsCommand) },
  { name: 'export', load: () => import('./export.js').then((m) => m.exportCommand) },
  { name: 'lake', load: () => import('./lake.js').then((m) => m.lakeCommand) },
  { name: 'survey', load: () => import('./survey-export.js').then((m) => m.surveyExportCommand) },
  { name: 'survey', load: () => import('./survey-import.js').then((m) => m.surveyImportCommand) },
  { name: 'view', load: () => import('./view.js').then((m) => m.viewCommand) },
];

/**
 * The entries a command line needs: the named command's (a group's modules together); none for `--version` alone;
 * every one otherwise (`--help`, `help`, an unknown command or option: what commander prints then names them all).
 */
export function entriesFor(args: readonly string[]): CommandEntry[] {
  const first = args[0];
  if (first === '-V' || first === '--version') return [];
  const named = commandEntries.filter((e) => e.name === first);
  return named.length > 0 ? named : commandEntries;
}

/** The modules of `entries`, loaded side by side, in the registry's order. */
export function loadCommands(entries: readonly CommandEntry[] = commandEntries): Promise<CommandModule[]> {
  return Promise.all(entries.map((e) => e.load()));
}
