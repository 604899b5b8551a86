import { validateCommand } from './validate.js';
import { schemaCommand } from './schema.js';
import { migrateCommand } from './migrate.js';
import { pathsCommand } from './paths.js';
import { hashCommand } from './hash.js';
import { evaluateCommand } from './evaluate.js';
import { sweepCommand } from './sweep.js';
import { metricsCommand } from './metrics.js';
import { retestCommand } from './retest.js';
import { auditCommand } from './audit.js';
import { monotonicityCommand } from './monotonicity.js';
import { structureCommand } from './structure.js';
import { reportCommand } from './report.js';
import { retrievalCommand } from './retrieval.js';
import { statsCommand } from './stats.js';
import { convertCommand } from './convert.js';
import { ingestCommand } from './ingest.js';
import { queryCommand } from './query.js';
import { exportCommand } from './export.js';
import { modelCommand } from './model.js';
import { modelsCommand } from './models.js';
import { describeCommand } from './describe.js';
import { bearersImportCommand } from './bearers-import.js';
import { compareRunsCommand } from './compare-runs.js';
import { viewCommand } from './view.js';
import { leaderboardCommand } from './leaderboard.js';
import { compareCommand } from './compare.js';
import { reconcileCommand } from './reconcile.js';
import { surveyExportCommand } from './survey-export.js';
import { surveyImportCommand } from './survey-import.js';
import type { CommandModule } from '../context.js';

/** Every sub-command, one module file each, in the order `evalkit --help` lists them. */
export const commandModules: CommandModule[] = [
  validateCommand,
  schemaCommand,
  migrateCommand,
  pathsCommand,
  hashCommand,
  evaluateCommand,
  sweepCommand,
  describeCommand,
  bearersImportCommand,
  metricsCommand,
  retestCommand,
  compareRunsCommand,
  auditCommand,
  monotonicityCommand,
  structureCommand,
  modelCommand,
  reportCommand,
  retrievalCommand,
  statsCommand,
  convertCommand,
  ingestCommand,
  queryCommand,
  leaderboardCommand,
  compareCommand,
  reconcileCommand,
  modelsCommand,
  exportCommand,
  surveyExportCommand,
  surveyImportCommand,
  viewCommand,
];
