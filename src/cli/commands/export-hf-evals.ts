import { Option, type Command } from 'commander';
import type { CliIO } from '../context.js';
import { addDbOption, addLakeOption, json, resolvePath, storeTargetOf } from '../options.js';
import { checkOutputs } from '../../io/preflight.js';
import { textTable } from '../../report/tables.js';
import type { HfExportReport } from '../../store/hf-evals/index.js';

interface HfEvalsFlags {
  db?: string;
  lake?: string;
  benchmarks?: string;
  modelRepos?: string;
  model?: string[];
  sourceUrl?: string;
  sourceName?: string;
  modelIndex?: boolean;
  dryRun?: boolean;
  format: 'text' | 'json';
}

const HEADER = ['model', 'benchmark', 'dataset', 'task', 'value', 'status', 'file / reason'];

function renderText(report: HfExportReport, dryRun: boolean): string {
  const cells = report.rows.map((r) => [
    r.model_id,
    r.benchmark,
    r.entry?.dataset_id ?? '',
    r.entry?.task_id ?? '',
    r.entry ? String(r.entry.value) : '',
    r.status,
    r.status === 'unmapped' || r.status === 'no_clone'
      ? (r.reason ?? '')
      : r.existing
        ? `${r.existing.file} #${r.existing.index + 1} has ${JSON.stringify(r.existing.value)}`
        : (r.file ?? ''),
  ]);
  const out = [textTable(HEADER, cells, [4])];
  const count = (s: string) => report.rows.filter((r) => r.status === s).length;
  out.push(
    `${count('ready')} ready, ${count('already_present')} already present, ${count('score_conflict')} score conflict(s) (never overwritten), ${count('unmapped')} unmapped${count('no_clone') > 0 ? `, ${count('no_clone')} without a clone (not written)` : ''}\n`,
  );
  if (dryRun) out.push('dry run: nothing written\n');
  else
    for (const w of report.written)
      out.push(
        `${w.appended ? 'appended' : 'wrote'} ${w.entries} entr${w.entries === 1 ? 'y' : 'ies'} ${w.appended ? 'to' : 'in'} ${w.file}\n`,
      );
  for (const [model, block] of Object.entries(report.model_index ?? {}))
    out.push(`\n# model-index for ${model}\n${block}`);
  return out.join('');
}

export function registerHfEvals(exp: Command, io: CliIO, run: (f: () => Promise<number>) => void): void {
  const command = exp
    .command('hf-evals')
    .summary("results as the Hugging Face Hub's .eval_results files, one folder per model")
    .description(
      "Write the Hub's community-evals files: OUT/<org>/<model>/.eval_results/<task>.yaml, each a YAML list of " +
        'entries {dataset: {id, task_id, revision?}, value, date?, source?: {url, name?}, notes?}, from a store ' +
        '(--db / --lake) or from EEE records given as RECORDS (validated and read through a temporary store).\n\n' +
        'A benchmark (evaluation_name) maps to a Hub dataset, its task and the metric to export through a table kept ' +
        'as data (built in: gpqa (diamond), mmlu_pro, gsm8k, hle, mmlu, arc_challenge, hellaswag, truthfulqa, ' +
        'winogrande, ifeval, bbh, math), extended or overridden by --benchmarks FILE (JSON: benchmark name → ' +
        '{"dataset_id", "task_id", "metric"}, metric a name or a list in order of preference; optional "revision", ' +
        '"notes"). A benchmark with no mapping, or without its mapped metric, is listed as unmapped, never guessed. ' +
        "Each model's result is the leaderboard's (its most recently retrieved record); the value is written as " +
        "stored; date is the evaluation timestamp; source needs a URL (the record's organisation URL, or " +
        "--source-url) and is named after the evaluator (the record's organisation, or --source-name). Output is " +
        'deterministic, file and folder names are safe on every platform; two models whose ids clean to one folder ' +
        'are refused, naming both.\n\n' +
        '--model-repos DIR (local clones, DIR/<org>/<model>/.eval_results/*.yaml) audits each entry against the ' +
        'files it will be appended to (those in OUT, else the clone’s): ready, already_present (same dataset, task ' +
        'and value), score_conflict (same dataset and task, another value: never overwritten), unmapped. Only ready ' +
        "entries are written, appended to the model's file for that task without reordering it (OUT may be DIR " +
        'itself, to write into the clones; a model without a clone there is no_clone and nothing is made for it). ' +
        'A link inside a clone is followed only while it stays inside the clone. Without --model-repos OUT must be ' +
        'new or empty. --model-index also prints the legacy model-index block of each model card. Nothing is sent ' +
        'anywhere: publishing is your git push.\n\n' +
        'Exit codes: 0 ok, 1 invalid records or model-repository files, 2 usage or I/O error (a link out of a ' +
        'clone, a folder where a file belongs).',
    )
    .argument('<out>', 'the folder to write into (OUT/<org>/<model>/.eval_results/)')
    .argument('[records...]', 'EEE records (files or folders) instead of a store')
    .option(
      '--benchmarks <file>',
      'JSON: benchmark name → {dataset_id, task_id, metric}, over the built-in table',
    )
    .option('--model-repos <dir>', 'audit against model repository clones DIR/<org>/<model>/.eval_results/')
    .option('--model <id...>', 'only these models')
    .option(
      '--source-url <url>',
      'source.url of every entry (e.g. your traces); default: the record organisation URL',
    )
    .option('--source-name <name>', 'source.name of every entry (default: the record organisation)')
    .option('--model-index', 'also print the legacy model-index block for each model card')
    .option('--dry-run', 'audit and print, write nothing')
    .addOption(
      new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'),
    );
  addLakeOption(addDbOption(command)).action((out: string, records: string[], flags: HfEvalsFlags) =>
    run(async () => {
      const { exportHfEvals, builtinBenchmarks, readBenchmarks, withRecordsStore } =
        await import('../../store/hf-evals/index.js');
      const table = flags.benchmarks
        ? await readBenchmarks(resolvePath(io.cwd, flags.benchmarks))
        : builtinBenchmarks();
      const target = resolvePath(io.cwd, out);
      checkOutputs({ inputs: [flags.db, flags.benchmarks, ...records], folders: [out], cwd: io.cwd });
      const options = {
        out: target,
        table,
        modelRepos: flags.modelRepos === undefined ? undefined : resolvePath(io.cwd, flags.modelRepos),
        models: flags.model,
        sourceUrl: flags.sourceUrl,
        sourceName: flags.sourceName,
        dryRun: flags.dryRun,
        modelIndex: flags.modelIndex,
      };
      let report: HfExportReport;
      if (records.length > 0) {
        if (flags.db !== undefined || flags.lake !== undefined) {
          const { UsageError } = await import('../../errors.js');
          throw new UsageError('usage.bad-option', 'give RECORDS or a store (--db / --lake), not both');
        }
        report = await withRecordsStore(records, io.cwd, (store) => exportHfEvals(store, options));
      } else {
        const { openReadStore } = await import('../../store/open.js');
        const store = await openReadStore(storeTargetOf(flags, io));
        try {
          report = await exportHfEvals(store, options);
        } finally {
          store.close();
        }
      }
      io.stdout.write(flags.format === 'json' ? json(report) : renderText(report, flags.dryRun === true));
      return 0;
    }),
  );
}
