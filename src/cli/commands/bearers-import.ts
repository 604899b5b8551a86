import { Option } from 'commander';
import { pathExists } from '../../io/files.js';
import { UsageError } from '../../errors.js';
import { writeFileAtomic } from '../../io/atomic.js';
import { checkOutputs } from '../../io/preflight.js';
import { readRegularFile } from '../../io/regular-file.js';
import { bearersImport } from '../../validate/infereval.js';
import { useColor, type CommandModule } from '../context.js';
import { json, resolvePath } from '../options.js';
import { diagnosticLine } from '../output/diagnostics.js';

interface BearersFlags {
  output?: string;
  force?: boolean;
  format: 'text' | 'json';
}

export const bearersImportCommand: CommandModule = {
  register(program, io, run) {
    program
      .command('bearers-import')
      .summary('build an infereval benchmark from a bearers file and an items document')
      .description(
        'Build an infereval benchmark (β) from a bearers file (the vocabulary) and an items document ' +
          '({"_meta": {...}, "items": [...]}), as the infereval reference\u2019s bearers-import does, and check it: the ' +
          'bearers grammar, the constraint compiler\u2019s rules on every item, and every rule of `evalkit validate`. ' +
          'Each problem is reported at its line and column in the file you wrote, naming the item.\n\n' +
          'Bearers file: one `id "expression"` line per bearer; declarations on # comment lines:\n' +
          '  # @ordinal FAMILY = [t0, t1, ...] @target T   ordered, mutually exclusive tiers (lowest first)\n' +
          '  # @mutex FAMILY = [a, b, ...]                 unordered, mutually exclusive\n' +
          '  # @entails a -> b                             a present entails b\n' +
          '  # @copresent A & B                            families whose tiers occur together in premises\n' +
          '  # ~regularity: text                           a defeasible regularity (tested, not enforced)\n\n' +
          'Items document: _meta (id, title, domain, description, targets, analysts, verification_prompt, ' +
          'template_id, context_builders) and items (id, premises, target or conclusions, analyst_verdicts, ' +
          'ladder, variation, placeholder, note, monotonicity). Without _meta.analysts one stand-in analyst ' +
          '"pending-analyst-panel" abstains on every item; an item\u2019s placeholder is never used as a verdict.\n\n' +
          'Without -o the benchmark is only checked. The output is written atomically, only when there is no ' +
          'error, and never over an existing file without --force.\n\n' +
          'Exit codes: 0 built (warnings allowed), 1 errors in the files, 2 usage or I/O error.',
      )
      .argument('<bearers>', 'the bearers file')
      .argument('<items>', 'the items document (JSON)')
      .option('-o, --output <file>', 'write the benchmark here (default: check only)')
      .option('--force', 'overwrite the output if it exists')
      .addOption(
        new Option('-f, --format <format>', 'report as text or json')
          .choices(['text', 'json'])
          .default('text'),
      )
      .action((bearers: string, items: string, flags: BearersFlags) =>
        run(async () => {
          const output = flags.output === undefined ? undefined : resolvePath(io.cwd, flags.output);
          const inputs = [resolvePath(io.cwd, bearers), resolvePath(io.cwd, items)];
          if (output !== undefined) {
            checkOutputs({ inputs, files: [output], cwd: io.cwd });
            if ((await pathExists(output)) && !flags.force)
              throw new UsageError(
                'bearers.output-exists',
                `${flags.output} exists (pass --force to overwrite it)`,
              );
          }
          const [bearersText, itemsText] = await Promise.all(
            inputs.map(async (p, i) => (await readRegularFile(p, [bearers, items][i])).toString('utf8')),
          );
          const result = bearersImport(bearersText, itemsText, { bearers, items });
          const ok = result.summary.errors === 0 && result.benchmark !== null;
          if (ok && output !== undefined)
            await writeFileAtomic(output, `${JSON.stringify(result.benchmark, null, 2)}\n`);
          if (flags.format === 'json') {
            io.stdout.write(
              json({
                ...result.summary,
                output: ok ? (flags.output ?? null) : null,
                diagnostics: result.diagnostics,
                compiled: result.compiled,
              }),
            );
          } else {
            const color = useColor(io);
            for (const d of result.diagnostics) io.stdout.write(`${diagnosticLine(d, color)}\n`);
            const s = result.summary;
            const what =
              `${s.bearers} bearers, ${s.items} items, ${s.analysts} analyst(s)${s.pending_panel ? ' (pending panel)' : ''}, ` +
              `${s.ordinal_families} families, ${s.copresence_rules} copresence and ${s.entailment_rules} entailment rules, ` +
              `${s.regularities} regularities, ${s.exclusivity_sequents} exclusivity sequents`;
            io.stdout.write(
              ok
                ? `${output !== undefined ? `wrote ${flags.output}` : 'checked'}: benchmark ${JSON.stringify(s.id)}: ${what}${s.warnings ? `; ${s.warnings} warning(s)` : ''}\n`
                : `not built: ${s.errors} error(s), ${s.warnings} warning(s)${output !== undefined ? `; ${flags.output} not written` : ''}\n`,
            );
          }
          return ok ? 0 : 1;
        }),
      );
  },
};
