import { spawn } from 'node:child_process';
import { Option } from 'commander';
import { UsageError } from '../../errors.js';
import type { CommandModule } from '../context.js';
import { addDbOption, addLakeOption, dbPathOf, intArg, json, resolvePath } from '../options.js';
import { openViewStore } from './view-store.js';
import { checkToken } from '../../view/token.js';
import { createProgress } from '../output/progress.js';
import { checkOutputs } from '../../io/preflight.js';

interface ViewFlags {
  db?: string;
  lake?: string;
  port: number;
  host: string;
  open: boolean;
  token?: string;
  export?: string;
  format: 'text' | 'json';
}

/** Opens the system's browser on a desktop (macOS, Windows, or Linux with a display); silent when it cannot. */
function openBrowser(url: string, env: NodeJS.ProcessEnv): void {
  const command =
    process.platform === 'darwin'
      ? ['open', url]
      : process.platform === 'win32'
        ? ['cmd', '/c', 'start', '', url]
        : env.DISPLAY || env.WAYLAND_DISPLAY
          ? ['xdg-open', url]
          : undefined;
  if (!command) return;
  try {
    const child = spawn(command[0]!, command.slice(1), { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No browser: the URL is printed.
  }
}

const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Resolves when the process is asked to stop (Ctrl-C, SIGTERM, or its terminal closing: SIGHUP). */
function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      for (const signal of STOP_SIGNALS) process.off(signal, stop);
      resolve();
    };
    for (const signal of STOP_SIGNALS) process.on(signal, stop);
  });
}

export const viewCommand: CommandModule = {
  register(program, io, run) {
    const command = program
      .command('view')
      .summary('a local web app over the store: leaderboards, records, samples, side-by-side comparison')
      .description(
        'Serve a web app over an evalkit store (opened read-only): overview, leaderboards with CIs and tiers,\n' +
          'models, records with their validation diagnostics, samples (paged, searchable), two models compared on\n' +
          'the same questions with the paired statistics of `evalkit compare` and their disagreements side by\n' +
          'side, infereval agreement and retrieval per-query metrics. With PATH... the files are ingested into a\n' +
          'temporary store first (removed when the view stops: Ctrl-C, SIGTERM or SIGHUP). The URL is the first\n' +
          'line of standard output; the browser opens on a desktop unless --no-open. Stop with Ctrl-C.\n\n' +
          'Security: the default host is 127.0.0.1. Any other host requires a token on every request (--token, or\n' +
          'one generated and printed in the URL). Pages run no inline script (Content-Security-Policy) and show\n' +
          'every text of a record as text, bidirectional controls as visible escapes. Texts longer than 64K\n' +
          'characters are cut, with a marker saying where the rest is (/api/text, in pieces).\n\n' +
          'With --export DIR, write the same app as a static site instead (index.html at its root, the data as\n' +
          'JSON files) that any static file server can host. DIR must be new, empty, or an earlier export that\n' +
          'holds nothing else (.evalkit-export.json lists what it wrote); anything else is refused untouched. The\n' +
          'site is built beside DIR and swapped in whole, so an interrupted export leaves the earlier one as it was.\n\n' +
          'Exit codes: 0 stopped or exported, 2 usage or I/O error.',
      )
      .argument('[paths...]', 'files or folders to ingest into a temporary store instead of --db');
    addLakeOption(addDbOption(command))
      .option('-p, --port <n>', 'port (0: any free port)', intArg('--port', 0), 4170)
      .option('--host <host>', 'interface to listen on; any but loopback requires a token', '127.0.0.1')
      .option('--no-open', 'do not open a browser')
      .option(
        '--token <token>',
        'require this token on every request (generated when --host is not loopback)',
      )
      .option('--export <dir>', 'write a static site of the app to this folder instead of serving')
      .addOption(
        new Option('-f, --format <format>', 'the export summary as text or json')
          .choices(['text', 'json'])
          .default('text'),
      )
      .action((paths: string[], flags: ViewFlags) =>
        run(async () => {
          if (flags.port > 65535) throw new UsageError('usage.bad-option', `--port must be at most 65535`);
          if (flags.token !== undefined) checkToken(flags.token);
          if (flags.export) {
            const inputs = [
              ...paths,
              flags.db === undefined && (paths.length > 0 || flags.lake !== undefined)
                ? undefined
                : dbPathOf(flags.db, io),
            ];
            checkOutputs({ inputs, folders: [flags.export], cwd: io.cwd });
          }
          const { store, cleanup } = await openViewStore(flags.db, paths, io, flags.lake);
          try {
            if (flags.export) {
              const { exportStaticSite } = await import('../../view/export.js');
              const dir = resolvePath(io.cwd, flags.export);
              const progress = createProgress(io, { unit: 'items' });
              const summary = await exportStaticSite(store, dir, {
                onFile: (n) => progress.update(n, 0, 'files'),
              });
              progress.done();
              if (flags.format === 'json') io.stdout.write(json(summary));
              else {
                io.stdout.write(
                  `${dir}/index.html\nexported ${summary.files} files (${(summary.bytes / 1024 / 1024).toFixed(1)} MB)` +
                    `; serve the folder with any static file server, e.g. python3 -m http.server -d ${flags.export}\n`,
                );
                for (const s of summary.skipped.slice(0, 5)) {
                  io.stderr.write(`evalkit: warning view.export-skipped ${s.endpoint}: ${s.reason}\n`);
                }
                for (const t of summary.truncated.slice(0, 5)) {
                  io.stderr.write(
                    `evalkit: warning view.export-truncated record ${t.record} result ${t.result}: ${t.exported} of ${t.rows} rows exported\n`,
                  );
                }
              }
              return 0;
            }
            const { isLoopback, startViewServer } = await import('../../view/server.js');
            const server = await startViewServer({
              store,
              host: flags.host,
              port: flags.port,
              token: flags.token,
            });
            io.stdout.write(`${server.url}\n`);
            io.stdout.write(
              `evalkit view: serving ${store.path} read-only${isLoopback(flags.host) ? '' : ' (token required)'}; Ctrl-C stops\n`,
            );
            if (flags.open) openBrowser(server.url, io.env);
            await untilStopped();
            await server.close();
            return 0;
          } finally {
            await cleanup();
          }
        }),
      );
  },
};
