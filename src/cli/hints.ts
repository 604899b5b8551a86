/**
 * The flag or command that acts on a library error, by the error's code. The library never names flags (it is called
 * from code as well as from this CLI), so the CLI adds the remedy wherever it prints an error.
 */
const CLI_HINTS: Record<string, string> = {
  'run.stopped-early': 'once the cause is fixed, run the same command with --retry-failed',
  'run.api-key-missing': 'name another variable with --api-key-env NAME',
  'run.config-changed': 'pass another -o',
  'run.replay-needs-fixture': 'pass --replay-from FIXTURE.jsonl',
  'run.support-needs-one-conclusion': 'run it with --question-form coherence',
  'sweep.no-values': 'e.g. --values 1,3,5',
  'sweep.duplicate-value': 'in --values',
  'metrics.reference-needs-benchmark': 'pass --benchmark FILE',
  'metrics.rsr-target-needs-benchmark': 'pass --benchmark FILE',
  'metrics.rsr-target': 'in --by-rsr-target',
  'retest.mismatch.question-form': 'compare such runs with `evalkit compare-runs --guard template`',
  'retest.mismatch.coherence-frame': 'compare such runs with `evalkit compare-runs --guard template`',
  'compare.mismatch.model': '--allow-different-setup to override',
  'compare.mismatch.params': '--allow-different-setup to override',
  'model.no-factors': '`evalkit metrics --by-tag` gives a decomposition by tag',
  'convert.exists': 'pass --force to replace it',
  'zip.too-large': 'if the archive is trusted, raise the caps with --zip-member-limit / --zip-archive-limit',
  'store.duplicate-record': '--allow-duplicates stores it',
  'usage.migrate-mode': 'pass -o DIR, --in-place, or --dry-run to only report',
  'usage.migrate-to': 'in --to',
  'survey.incomplete': 'pass --allow-partial to import them with ABSTAIN where they gave no verdict',
  'survey.analyst-exists':
    'pass --replace to replace them, or another --analyst-id-prefix to add them beside',
  'survey.panel-needed': 'pass --panel NAME',
  'survey.panel-unused': 'leave out --panel',
  'survey.frame-mismatch': 'declare the recorded frame with --coherence-frame, or export the survey again',
  'survey.form-mismatch': 'leave out --question-form to use the recorded one',
  'survey.surveymonkey-token-missing': 'set SURVEYMONKEY_ACCESS_TOKEN, or pass --surveymonkey-token',
  'survey.surveymonkey-too-many-pages': 'if the survey really holds more, raise --surveymonkey-max-pages',
  'survey.surveymonkey-auth': 'the token comes from SURVEYMONKEY_ACCESS_TOKEN or --surveymonkey-token',
};

/** An error's message followed by the CLI's remedy for its code, when there is one. */
export function withCliHint(code: string, message: string): string {
  const hint = CLI_HINTS[code];
  return hint === undefined ? message : `${message} (${hint})`;
}
