import { Option } from 'commander';
import { UsageError } from '../../errors.js';
import { writeFileAtomic } from '../../io/atomic.js';
import { checkOutputs } from '../../io/preflight.js';
import { BUILTIN_COHERENCE_FRAMES } from '../../formats/infereval/coherence-frames.js';
import { EXPORT_TARGETS, exportSurvey, type ExportTarget } from '../../survey/export/index.js';
import { readBenchmarkDocument } from '../../survey/import/index.js';
import { mappingSidecarPath, writeMappingSidecar, type QuestionForm } from '../../survey/mapping.js';
import type { CommandModule } from '../context.js';
import { json, resolvePath } from '../options.js';
import { surveyGroup } from './survey-group.js';
import { pathExists } from '../../io/files.js';

interface ExportFlags {
  to: ExportTarget;
  output: string;
  questionForm: QuestionForm;
  coherenceFrame?: string;
  title?: string;
  expertisePrompt?: string;
  randomizeItems: boolean;
  includeRationales: boolean;
  force?: boolean;
  format: 'text' | 'json';
}

const NEXT_STEP: Record<ExportTarget, string> = {
  'qualtrics-qsf': 'import it in Qualtrics (Create project → Survey → From a file)',
  'google-forms-gas':
    'paste it into a new project at script.google.com, run createForm() and read the form URL from the execution log',
  csv: 'build the survey from the sheet, titling the questions as its verdict_title and rationale_title columns say',
};

export const surveyExportCommand: CommandModule = {
  register(program, io, run) {
    surveyGroup(program)
      .command('export')
      .summary("a benchmark's items as a survey (Qualtrics .qsf, Google Forms script, CSV sheet)")
      .description(
        'Write the items of a benchmark as a survey analysts answer, and the mapping sidecar <OUTPUT>.mapping.json ' +
          'that `evalkit survey import` needs to read their answers back.\n\n' +
          'Each item is one required multiple-choice question (its header, the premises and conclusion, three ' +
          'choices) and, unless --no-include-rationales, an optional text question for the reason. The survey ' +
          'starts with a free-text question on the respondent\u2019s expertise.\n\n' +
          'Question forms. support: "is the conclusion a good diagnostic inference, a bad one, or can you not ' +
          'judge?", Good / Bad / Abstain, single-conclusion items only. coherence: the frame\u2019s survey header ' +
          'and the commit/deny position the model is shown, Coherent / Incoherent / Unclear, any number of ' +
          "conclusions; the frame is --coherence-frame, else the benchmark's coherence_frame_id, else thin-v1.\n\n" +
          'Targets. qualtrics-qsf: a .qsf file; the response CSV\u2019s columns are the item tags (item ids made ' +
          'CSV-safe). google-forms-gas: an Apps Script that creates the form in your Google account (items keep ' +
          'their order: Google Forms cannot shuffle part of a form). csv: one row per item, to build the survey by ' +
          'hand in another tool (e.g. SurveyMonkey).\n\n' +
          'The sidecar is always written (the reference skipped it for default-frame Qualtrics exports): it records ' +
          'the question form and frame so an import under another frame is refused. Both files are written ' +
          'atomically; existing files are not replaced without --force.\n\n' +
          'Exit codes: 0 written, 1 a benchmark that cannot be exported (a support question on an item with several ' +
          'conclusions), 2 usage or I/O error (unknown frame, output exists).',
      )
      .argument('<benchmark>', 'the benchmark β (JSON)')
      .addOption(
        new Option('--to <target>', 'the survey platform').choices([...EXPORT_TARGETS]).makeOptionMandatory(),
      )
      .requiredOption('-o, --output <file>', 'the survey file (the sidecar goes beside it)')
      .addOption(
        new Option('--question-form <form>', 'the question to ask')
          .choices(['support', 'coherence'])
          .default('support'),
      )
      .addOption(
        new Option('--coherence-frame <id>', 'coherence frame whose survey header the questions use').choices(
          BUILTIN_COHERENCE_FRAMES.map((f) => f.id),
        ),
      )
      .option('--title <text>', 'survey title (default: "Analyst recruitment for <benchmark id>")')
      .option(
        '--expertise-prompt <text>',
        'the first, free-text question (default: a question on domain expertise)',
      )
      .option(
        '--no-randomize-items',
        'keep the items in benchmark order (default: shuffled per respondent where the platform can)',
      )
      .option('--no-include-rationales', 'no free-text rationale question after each item')
      .option('--force', 'replace the survey file and sidecar if they exist')
      .addOption(
        new Option('-f, --format <format>', 'summary as text or json')
          .choices(['text', 'json'])
          .default('text'),
      )
      .action((benchmark: string, flags: ExportFlags) =>
        run(async () => {
          const benchmarkPath = resolvePath(io.cwd, benchmark);
          const output = resolvePath(io.cwd, flags.output);
          const sidecar = mappingSidecarPath(output);
          checkOutputs({ inputs: [benchmarkPath], files: [output, sidecar], cwd: io.cwd });
          if (!flags.force)
            for (const [path, shown] of [
              [output, flags.output],
              [sidecar, mappingSidecarPath(flags.output)],
            ])
              if (await pathExists(path))
                throw new UsageError('survey.output-exists', `${shown} exists (pass --force to replace it)`);
          const { benchmark: parsed } = await readBenchmarkDocument(benchmarkPath);
          const result = exportSurvey(parsed, {
            to: flags.to,
            questionForm: flags.questionForm,
            coherenceFrame: flags.coherenceFrame,
            title: flags.title,
            expertisePrompt: flags.expertisePrompt,
            includeRationales: flags.includeRationales,
            randomizeItems: flags.randomizeItems,
          });
          // The sidecar first: an artifact never exists without the key to read its answers.
          await writeMappingSidecar(output, result.mapping);
          await writeFileAtomic(output, result.text);
          const summary = {
            ...result.summary,
            benchmark,
            output: flags.output,
            mapping: mappingSidecarPath(flags.output),
          };
          if (flags.format === 'json') io.stdout.write(json(summary));
          else {
            for (const w of summary.warnings) io.stderr.write(`evalkit: warning: ${w}\n`);
            io.stdout.write(
              `wrote ${summary.output}: ${summary.items} items (${summary.question_form} question, frame ${summary.frame_id}` +
                `${summary.rationales ? ', with rationales' : ''}${summary.randomized ? ', item order shuffled' : ''})\n` +
                `wrote ${summary.mapping}: the mapping survey import needs\n` +
                `next: ${NEXT_STEP[flags.to]}; then \`evalkit survey import ${benchmark} RESPONSES --from ... --mapping ${summary.mapping} -o OUT.json\`\n`,
            );
          }
          return 0;
        }),
      );
  },
};
