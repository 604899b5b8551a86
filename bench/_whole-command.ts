// The whole command as a user runs it, for the store benchmarks: `evalkit <args...>` in a fresh Node process on the
// CLI bundle (module loading included).
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** Wall seconds and standard output of `evalkit <args...>`; throws when it fails. */
export function runCommand(cli: string, args: string[]): [number, string] {
  const { seconds, stdout } = measureCommand(cli, args);
  return [seconds, stdout];
}

/**
 * Wall seconds, standard output and (with `peakRss`, through /usr/bin/time) the peak resident memory in MB of
 * `evalkit <args...>`; throws when it fails.
 */
export function measureCommand(
  cli: string,
  args: string[],
  peakRss = false,
): { seconds: number; stdout: string; rssMb?: number } {
  const node = [
    process.execPath,
    '--input-type=module',
    '-e',
    `const { main } = await import(${JSON.stringify(pathToFileURL(cli).href)}); process.exitCode = await main(process.argv);`,
    'evalkit',
    ...args,
  ];
  const [command, ...rest] = peakRss ? ['/usr/bin/time', '-f', '%M', ...node] : node;
  const t0 = performance.now();
  const r = spawnSync(command!, rest, { encoding: 'utf8', maxBuffer: 64 << 20 });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`evalkit ${args.join(' ')} failed: ${r.stderr}`);
  const rssMb = peakRss ? Number(r.stderr.trim().split('\n').at(-1)) / 1024 : undefined;
  return { seconds, stdout: r.stdout, ...(rssMb === undefined ? {} : { rssMb }) };
}
