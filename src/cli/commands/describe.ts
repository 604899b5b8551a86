import { Option } from 'commander';
import { benchmarkHash } from '../../formats/infereval/hash.js';
import { loadInfereval } from '../../validate/infereval.js';
import { describeBenchmark } from '../../metrics/infereval/describe.js';
import { renderDescription, renderItems } from '../../report/text/describe.js';
import type { CommandModule } from '../context.js';
import { json, resolvePath } from '../options.js';

export const describeCommand: CommandModule = {
  register(program, io, run) {
    program
      .command('describe')
      .summary('summary of an infereval benchmark and what it lacks for a construct-validity claim')
      .description(
        'Print the summary of an infereval benchmark (β) a person reads first: identity and hash, bearers and paraphrase variants, analysts with their label distributions, the inter-analyst κ_F*(β), panels (κ_F* per panel, cross-panel κ), items by tag and by factor cell, RSR targets, ordinal families, ladders and monotonicity ladders, construction rules, references and provenance.\n\n' +
          'It ends with what is missing before the benchmark can carry a construct-validity claim: no substantive labels, a single analyst, no independent panel, no declared factors, empty or under-populated factor cells, fewer than 10 items, no paraphrases, nothing for the structural checks, no provenance. Each has a stable code (describe.gap.*) and is a gap or a note.\n\n' +
          'Exit codes: 0 described (gaps do not change it), 1 invalid benchmark, 2 usage or I/O error.',
      )
      .argument('<benchmark>', 'the benchmark β (JSON)')
      .option(
        '--items',
        'also list every item for expert review: bearer ids, Γ and Δ in words, verdicts, tags, factor levels, provenance, references (text output)',
      )
      .addOption(
        new Option('-f, --format <format>', 'text for people, json for machines')
          .choices(['text', 'json'])
          .default('text'),
      )
      .action((path: string, flags: { format: 'text' | 'json'; items?: boolean }) =>
        run(async () => {
          const bench = await loadInfereval(resolvePath(io.cwd, path), 'benchmark');
          const d = describeBenchmark(bench, {
            hash: benchmarkHash(bench as unknown as Record<string, unknown>),
          });
          if (flags.format === 'json') io.stdout.write(json(d));
          else io.stdout.write(renderDescription(d) + (flags.items ? `\n${renderItems(bench)}` : ''));
          return 0;
        }),
      );
  },
};
