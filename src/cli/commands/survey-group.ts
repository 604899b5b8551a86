import type { Command } from 'commander';

/**
 * The `evalkit survey` group. `survey export` and `survey import` live in their own modules; each asks for the group
 * here, and the first one to ask creates it.
 */
export function surveyGroup(program: Command): Command {
  const existing = program.commands.find((c) => c.name() === 'survey');
  if (existing) return existing;
  return program
    .command('survey')
    .summary('give analysts the items as a survey and merge their answers back')
    .description(
      'Export a benchmark\u2019s items as a survey (Qualtrics .qsf, Google Forms Apps Script, CSV) and import the\n' +
        'responses (Qualtrics, Google Forms or SurveyMonkey CSV, or the SurveyMonkey API) back into the benchmark\n' +
        'as one analyst column per respondent. `evalkit survey export --help`, `evalkit survey import --help`.',
    );
}
