import { stat } from 'node:fs/promises';
import { readRegularFile } from '../../io/regular-file.js';
import { join, resolve } from 'node:path';
import { Option } from 'commander';
import { IoError } from '../../errors.js';
import { classifyPath, discoverJsonFiles, type PathVerdict } from '../../checks/path-policy.js';
import { parseStrictJson } from '../../io/strict-json.js';
import type { CommandModule } from '../context.js';

/** The verdict for each file, reading deprecated files to name their canonical destination from their content. */
async function verdicts(
  root: string,
  onUnreadable: (rel: string, error: NodeJS.ErrnoException) => void,
): Promise<PathVerdict[]> {
  const out: PathVerdict[] = [];
  for (const rel of await discoverJsonFiles(root, onUnreadable)) {
    let verdict = classifyPath(rel);
    if (verdict.status === 'deprecated') {
      try {
        const parsed = parseStrictJson(await readRegularFile(join(root, rel)));
        if (parsed.ok) verdict = classifyPath(rel, parsed.value);
      } catch {
        // Unreadable: keep the destination derived from the path.
      }
    }
    out.push(verdict);
  }
  return out;
}

export const pathsCommand: CommandModule = {
  register(program, io, run) {
    program
      .command('paths')
      .summary('check where benchmark output files live (benchmark output v1 path policy)')
      .description(
        [
          'List every *.json under ROOT (default: the current folder) with its',
          'verdict under the benchmark output v1 path policy:',
          '  allowed       outputs/**/*.json, benchmarks/**/results/**/*.json',
          '  deprecated    results/**/*.json, **/output.json and the generic names',
          '                results.json, metrics.json, eval.json (shown with the',
          '                canonical outputs/<benchmark>/<run_id>.json to move to)',
          '  unrecognised  anything else',
          '"**" matches zero or more folders. Skipped: .git, node_modules,',
          'virtualenvs, outputs/schemas.',
          '',
          'Exit codes: 0 no deprecated file, 1 some file is deprecated, 2 ROOT or',
          'a folder under it unreadable, or (with --fail-on-empty) no file in an',
          'allowed or deprecated location.',
        ].join('\n'),
      )
      .argument('[root]', 'repository root', '.')
      .option('--fail-on-empty', 'exit 2 when no file lies in an allowed or deprecated location')
      .option('--problems-only', 'list only the deprecated files (the summary still counts every file)')
      .addOption(
        new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'),
      )
      .action(
        (root: string, options: { failOnEmpty?: boolean; problemsOnly?: boolean; format: 'text' | 'json' }) =>
          run(async () => {
            const absolute = resolve(io.cwd, root);
            const st = await stat(absolute).catch(() => undefined);
            if (!st?.isDirectory()) throw new IoError('io.read', `${root} is not a readable folder`);
            const unreadable: { path: string; reason: string }[] = [];
            const list = await verdicts(absolute, (rel, error) =>
              unreadable.push({
                path: rel === '' ? root : join(root, rel),
                reason:
                  error.code === 'EACCES' || error.code === 'EPERM'
                    ? 'permission denied'
                    : (error.code ?? error.message),
              }),
            );
            const count = (s: PathVerdict['status']) => list.filter((v) => v.status === s).length;
            const summary = {
              allowed: count('allowed'),
              deprecated: count('deprecated'),
              unrecognised: count('unrecognised'),
            };
            const shown = options.problemsOnly ? list.filter((v) => v.status === 'deprecated') : list;
            if (options.format === 'json')
              io.stdout.write(
                `${JSON.stringify({ root, files: shown, summary, unreadable_folders: unreadable }, null, 2)}\n`,
              );
            else {
              for (const u of unreadable)
                io.stderr.write(`evalkit paths: cannot read folder ${u.path}: ${u.reason}\n`);
              for (const v of shown) {
                const tail = v.status === 'deprecated' ? `  (${v.rule}) -> move to ${v.canonical}` : '';
                io.stdout.write(`${v.status.padEnd(12)} ${v.path}${tail}\n`);
              }
              io.stdout.write(
                `${list.length} JSON file(s): ${summary.allowed} allowed, ${summary.deprecated} deprecated, ${summary.unrecognised} unrecognised` +
                  `${unreadable.length > 0 ? `; ${unreadable.length} folder(s) could not be read` : ''}\n`,
              );
            }
            // A folder that could not be read may hold deprecated files: never "all clear".
            if (unreadable.length > 0) return 2;
            if (options.failOnEmpty && summary.allowed + summary.deprecated === 0) {
              io.stderr.write('evalkit paths: no benchmark output file found (--fail-on-empty)\n');
              return 2;
            }
            return summary.deprecated > 0 ? 1 : 0;
          }),
      );
  },
};
