import { Option } from 'commander';
import type { ReconcileReport } from '../../store/reconcile.js';
import type { CommandModule } from '../context.js';
import { textTable } from '../../report/tables.js';
import { isDisagreement } from '../../checks/reconciliation.js';
import { addDbOption, addLakeOption, json, storeTargetOf } from '../options.js';

interface ReconcileFlags {
  db?: string;
  lake?: string;
  all?: boolean;
  format: 'text' | 'json';
}

const HEADER = ['model', 'result', 'outcome', 'note'];

function renderText(report: ReconcileReport, all: boolean): string {
  const shown = all
    ? report.results
    : report.results.filter((r) => isDisagreement(r.outcome) || r.changed || r.lost);
  const s = report.summary;
  const lines = [
    `${s.records} record(s), ${s.results} result(s): ${s.reconciled} reconciled, ${s.not_checkable} not checkable, ` +
      `${s.disagreement} disagree with the source${s.changed > 0 ? `; ${s.changed} differ from the outcome the record keeps` : ''}` +
      (s.lost > 0 ? `; ${s.lost} kept as reconciled no longer reconcile` : ''),
  ];
  if (shown.length === 0) return `${lines[0]}\n`;
  const cells = shown.map((r) => [
    r.model_id,
    r.evaluation_result_id || r.evaluation_name,
    `${r.outcome}${r.changed ? ` (kept: ${r.stored_outcome})` : ''}${r.lost ? ' — no longer reconciled' : ''}`,
    r.note,
  ]);
  return `${textTable(HEADER, cells)}${lines[0]}\n`;
}

export const reconcileCommand: CommandModule = {
  register(program, io, run) {
    const command = program
      .command('reconcile')
      .summary('check every stored result against its stored rows and what its source declared')
      .description(
        'Checks every result again, as `convert` and `ingest` did when the record was written: the distinct ' +
          'samples of its rows against the count its source declared, the mean (or pass rate) of the rows against ' +
          'the headline score where the source says it is one (to 1e-9 relative), and the pairing keys ' +
          "(sample_hash, else sample_id) unique per sample apart from declared epochs. The source's facts are the " +
          'ones the record keeps (score_details.details.evalkit_reconciliation_declared); an outcome that differs ' +
          'from the one the record keeps is marked, and a result the record keeps as reconciled that no longer is ' +
          '(its rows deleted, its declared facts removed) is a disagreement. Reads the store (--db, --lake) or, ' +
          'given PATHS, the EEE records under them (aggregates with their samples files). The table lists every ' +
          'result that disagrees with its source or whose outcome changed (--all: every result). `ingest --strict` ' +
          'runs the same check on every EEE record it stores. See docs/convert.md, "Reconciliation".\n\n' +
          'Exit codes: 0 no result disagrees with its source, 1 some do (or no longer reconcile), 2 usage or I/O ' +
          'error.',
      )
      .argument('[paths...]', 'EEE record files or datastore folders (instead of a store)')
      .option('--all', 'list every result, also those that reconcile')
      .addOption(
        new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'),
      );
    addLakeOption(addDbOption(command)).action((paths: string[], flags: ReconcileFlags) =>
      run(async () => {
        const { reconcileFiles, reconcileStore, hasDisagreement } = await import('../../store/reconcile.js');
        let report: ReconcileReport;
        if (paths.length > 0) report = await reconcileFiles(paths, io.cwd);
        else {
          const { openReadStore } = await import('../../store/open.js');
          const store = await openReadStore(storeTargetOf(flags, io));
          try {
            report = await reconcileStore(store);
          } finally {
            store.close();
          }
        }
        io.stdout.write(flags.format === 'json' ? json(report) : renderText(report, flags.all === true));
        return hasDisagreement(report) ? 1 : 0;
      }),
    );
  },
};
