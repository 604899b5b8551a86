import { loadInfereval } from '../../validate/infereval.js';
import { audit } from '../../metrics/infereval/audit.js';
import { renderAudit } from '../../report/text/metrics.js';
import type { CommandModule } from '../context.js';
import { json, resolvePath } from '../options.js';
import { formatOption, type ReportFormat } from './metrics.js';

export const auditCommand: CommandModule = {
  register(program, io, run) {
    program
      .command('audit')
      .summary('find silent failures in an evaluation and recompute coverage and κ_C without them')
      .description(
        "Audit an evaluation's samples. A sample is a silent failure when the provider failed (provider_error), or when it is an abstain with an empty response or a zero or missing wall time: an \"abstention\" the model never made. Each item's verdict is re-voted without them (with the run's tie-break); items left with no genuine sample are instrument failures and are left out, never counted as abstentions. Coverage and Cohen's κ_C against the analysts' consensus are shown as recorded and as audited.\n\n" +
          'Exit codes: 0 no silent failure, 1 silent failures found or the file is invalid, 2 usage or I/O error.',
      )
      .argument('<evaluation>', 'the evaluation η')
      .addOption(formatOption())
      .action((evaluation: string, flags: { format: ReportFormat }) =>
        run(async () => {
          const eta = await loadInfereval(resolvePath(io.cwd, evaluation), 'evaluation');
          const report = audit(eta);
          io.stdout.write(flags.format === 'json' ? json(report) : renderAudit(report, flags.format));
          return report.n_silent_failures > 0 ? 1 : 0;
        }),
      );
  },
};
