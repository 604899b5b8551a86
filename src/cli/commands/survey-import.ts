import { Option } from 'commander';
import { isAbsolute, relative } from 'node:path';
import { UsageError } from '../../errors.js';
import { writeFileAtomic } from '../../io/atomic.js';
import { checkOutputs } from '../../io/preflight.js';
import type { QuestionForm } from '../../survey/mapping.js';
import { DEFAULT_ANALYST_ID_PREFIX } from '../../survey/merge.js';
import {
  findMappingSidecar,
  importSurvey,
  IMPORT_SOURCES,
  type ImportSource,
  type SurveyImportSummary,
} from '../../survey/import/index.js';
import {
  DEFAULT_SURVEYMONKEY_BASE_URL,
  DEFAULT_SURVEYMONKEY_MAX_PAGES,
} from '../../survey/import/surveymonkey-api.js';
import type { RetryInfo } from '../../io/net/retry.js';
import { isInteractive, type CliIO, type CommandModule } from '../context.js';
import { json, optionalInteger, resolvePath } from '../options.js';
import { createProgress } from '../output/progress.js';
import { surveyGroup } from './survey-group.js';
import { pathExists } from '../../io/files.js';

/** Pages between two progress lines when standard error is not a terminal. */
const PAGES_PER_LINE = 20;
/** Waits from this long on are said (a short backoff is not worth a line). */
const SAY_WAIT_FROM_MS = 5000;

/** A line saying how long the importer waits before retrying, when the wait is long (a server's Retry-After). */
function sayLongWait(io: CliIO, info: RetryInfo): void {
  if (info.delayMs < SAY_WAIT_FROM_MS) return;
  const seconds = (ms: number): string => `${Math.round(ms / 1000)} s`;
  const asked =
    info.retryAfterMs === undefined
      ? ''
      : info.retryAfterCapped
        ? ` (it asked for ${seconds(info.retryAfterMs)} with Retry-After; waiting at most ${seconds(info.delayMs)})`
        : ' (as its Retry-After asks)';
  io.stderr.write(
    `${isInteractive(io) ? '\r\x1b[K' : ''}SurveyMonkey answered ${info.error.message}; waiting ${seconds(info.delayMs)} before trying again${asked}\n`,
  );
}

interface ImportFlags {
  from: ImportSource;
  output: string;
  mapping?: string;
  questionForm?: QuestionForm;
  coherenceFrame?: string;
  analystIdPrefix: string;
  respondent?: string;
  requireComplete?: boolean;
  allowPartial?: boolean;
  replace?: boolean;
  panel?: string;
  force?: boolean;
  surveymonkeyToken?: string;
  surveymonkeyBaseUrl: string;
  surveymonkeyMaxPages?: string;
  format: 'text' | 'json';
}

function renderText(s: SurveyImportSummary, output: string): string {
  const lines: string[] = [];
  const mapping =
    s.mapping === null ? 'no mapping sidecar: columns from the benchmark order' : `mapping ${s.mapping}`;
  lines.push(
    `survey import: ${s.respondents_read} respondent(s) in ${s.responses} (${s.from}, ${s.question_form} question${s.frame_id ? `, frame ${s.frame_id}` : ''}; ${mapping})`,
  );
  const row = (what: string, a: SurveyImportSummary['added'][number]): string =>
    `  ${what.padEnd(9)}${a.analystId}: ${a.answered} verdict(s)` +
    (a.filledAbstain > 0 ? `, ${a.filledAbstain} blank filled with abstain` : '') +
    `, ${a.rationales} rationale(s)${a.finished ? '' : ', not finished'}`;
  for (const a of s.added) lines.push(row('added', a));
  for (const a of s.replaced) lines.push(row('replaced', a));
  for (const k of s.skipped)
    lines.push(
      `  ${'skipped'.padEnd(9)}${k.response_id}: ${k.reason === 'already-imported' ? 'already in the benchmark with the same answers' : 'not selected by --respondent'}`,
    );
  if (s.ignored_columns.length > 0)
    lines.push(`  ignored columns (not items, not the expertise question): ${s.ignored_columns.join(', ')}`);
  lines.push(
    `wrote ${output}: ${s.analysts_before} → ${s.analysts_after} analysts (${s.added.length} added, ${s.replaced.length} replaced, ${s.skipped.length} skipped)`,
  );
  lines.push(`  benchmark hash ${s.benchmark_hash_before} → ${s.benchmark_hash_after}`);
  return `${lines.join('\n')}\n`;
}

export const surveyImportCommand: CommandModule = {
  register(program, io, run) {
    surveyGroup(program)
      .command('import')
      .summary('merge survey responses into a benchmark as one analyst per respondent')
      .description(
        'Read the answers analysts gave to a survey made with `evalkit survey export` and write a new benchmark ' +
          'with one analyst per respondent: analyst id = --analyst-id-prefix + the response id, a verdict on every ' +
          'item, the rationales they wrote, their expertise answer as expertise_description.\n\n' +
          'Workflow: `evalkit survey export B --to qualtrics-qsf -o survey.qsf` (also writes survey.qsf.mapping.json) ' +
          '→ run the survey → download the responses (Qualtrics: CSV with choice text; Google Forms: the responses ' +
          'Sheet as CSV; SurveyMonkey: CSV with answer text, or read them with the API) → ' +
          '`evalkit survey import B responses.csv --from qualtrics-csv --mapping survey.qsf.mapping.json -o B2.json` ' +
          '→ `evalkit validate B2.json`, `evalkit describe B2.json`.\n\n' +
          'The mapping sidecar turns column headers ("Item 3 verdict", a Qualtrics tag) into item ids and records ' +
          'the question form and frame the survey asked; it is looked for as <RESPONSES>.mapping.json when ' +
          '--mapping is not given. Without one, Qualtrics columns are read as the item tags and "Item N" as the ' +
          "benchmark's Nth item. Choices decode by their first word: support Good/Bad/Abstain → good/bad/abstain; " +
          'coherence Incoherent → good, Coherent → bad, Unclear → abstain.\n\n' +
          'Guards: the declared --coherence-frame and --question-form must match the sidecar; respondents who did ' +
          'not finish or skipped an item are refused unless --allow-partial (then ABSTAIN fills the gaps). ' +
          'Importing into the output of an earlier import is stable: respondents already there with the same ' +
          'answers are skipped, ones whose answers changed are refused unless --replace. The output may not be ' +
          'an input (the reference allowed -o to be the benchmark itself) and is not overwritten without --force.\n\n' +
          'For --from surveymonkey-api, RESPONSES is the survey id; the access token is read from ' +
          '$SURVEYMONKEY_ACCESS_TOKEN (or --surveymonkey-token) and never printed.\n\n' +
          'Exit codes: 0 written, 1 responses that cannot be merged (unknown choice, incomplete respondent, frame ' +
          'mismatch, analyst already present), 2 usage, I/O or API error.',
      )
      .argument('<benchmark>', 'the benchmark β (JSON)')
      .argument('<responses>', 'the responses CSV, or the survey id for --from surveymonkey-api')
      .addOption(
        new Option('--from <source>', 'where the responses come from')
          .choices([...IMPORT_SOURCES])
          .makeOptionMandatory(),
      )
      .requiredOption('-o, --output <file>', 'the new benchmark (not one of the inputs)')
      .option('--mapping <sidecar>', 'the mapping sidecar (default: <RESPONSES>.mapping.json if it exists)')
      .addOption(
        new Option(
          '--question-form <form>',
          "the question the survey asked (default: the sidecar's, else support)",
        ).choices(['support', 'coherence']),
      )
      .option(
        '--coherence-frame <id>',
        'the frame the survey was exported under; refused if the sidecar records another',
      )
      .option('--analyst-id-prefix <prefix>', 'prefix of the new analyst ids', DEFAULT_ANALYST_ID_PREFIX)
      .option('--respondent <id>', 'import only this response id')
      .option('--require-complete', 'refuse respondents who did not finish or skipped an item (the default)')
      .option('--allow-partial', 'import them, with ABSTAIN where they gave no verdict')
      .option('--replace', 'replace analysts already in the benchmark whose answers differ (default: refuse)')
      .option(
        '--panel <name>',
        'panel of the new analysts (needed when the benchmark’s analysts declare panels)',
      )
      .option('--force', 'overwrite the output if it exists')
      .option(
        '--surveymonkey-token <token>',
        'SurveyMonkey access token (default $SURVEYMONKEY_ACCESS_TOKEN; visible to other users in the process list, prefer the variable)',
      )
      .option('--surveymonkey-base-url <url>', 'SurveyMonkey API base URL', DEFAULT_SURVEYMONKEY_BASE_URL)
      .option(
        '--surveymonkey-max-pages <n>',
        `stop following links.next after N pages of responses (default ${DEFAULT_SURVEYMONKEY_MAX_PAGES}, of 100 responses each)`,
      )
      .addOption(
        new Option('-f, --format <format>', 'summary as text or json')
          .choices(['text', 'json'])
          .default('text'),
      )
      .action((benchmark: string, responses: string, flags: ImportFlags) =>
        run(async () => {
          if (flags.requireComplete && flags.allowPartial)
            throw new UsageError(
              'usage.conflict',
              'use either --require-complete or --allow-partial, not both',
            );
          const api = flags.from === 'surveymonkey-api';
          const benchmarkPath = resolvePath(io.cwd, benchmark);
          const responsesPath = api ? responses : resolvePath(io.cwd, responses);
          const output = resolvePath(io.cwd, flags.output);
          const mapping = flags.mapping === undefined ? undefined : resolvePath(io.cwd, flags.mapping);
          const sidecar = await findMappingSidecar({ mapping, responses: responsesPath, from: flags.from });
          checkOutputs({
            inputs: [benchmarkPath, api ? undefined : responsesPath, sidecar ?? undefined],
            files: [output],
            cwd: io.cwd,
          });
          if (!flags.force && (await pathExists(output)))
            throw new UsageError(
              'survey.output-exists',
              `${flags.output} exists (pass --force to overwrite it)`,
            );
          const progress = createProgress(io, { unit: 'items' });
          let result;
          try {
            result = await importSurvey({
              benchmark: benchmarkPath,
              responses: responsesPath,
              from: flags.from,
              mapping,
              questionForm: flags.questionForm,
              coherenceFrame: flags.coherenceFrame,
              respondent: flags.respondent,
              analystIdPrefix: flags.analystIdPrefix,
              requireComplete: !flags.allowPartial,
              replace: flags.replace,
              panel: flags.panel,
              surveyMonkey: {
                token: flags.surveymonkeyToken ?? io.env.SURVEYMONKEY_ACCESS_TOKEN ?? '',
                baseUrl: flags.surveymonkeyBaseUrl,
                maxPages: optionalInteger(flags.surveymonkeyMaxPages, '--surveymonkey-max-pages', 1),
                onPage: (read, total, pages) => {
                  progress.update(read, Math.max(read, total ?? read), `responses, page ${pages}`);
                  // Without a terminal (no bar), a line now and then: a long chain is never followed silently.
                  if (!isInteractive(io) && pages % PAGES_PER_LINE === 0)
                    io.stderr.write(
                      `SurveyMonkey: ${pages} pages read, ${read} responses${total === undefined ? '' : ` of ${total}`}\n`,
                    );
                },
                retryHooks: { onRetry: (info) => sayLongWait(io, info) },
              },
            });
          } finally {
            progress.done();
          }
          await writeFileAtomic(output, result.text);
          // Paths as the user typed them (an auto-found sidecar relative to the working folder).
          const shownMapping =
            flags.mapping ??
            (sidecar === null ? null : isAbsolute(responses) ? sidecar : relative(io.cwd, sidecar));
          const summary = {
            ...result.summary,
            benchmark,
            responses,
            mapping: shownMapping,
            output: flags.output,
          };
          io.stdout.write(flags.format === 'json' ? json(summary) : renderText(summary, flags.output));
          return 0;
        }),
      );
  },
};
