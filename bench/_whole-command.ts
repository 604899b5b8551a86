// The whole command as a user runs it, for the store benchmarks: `evalkit <args...>` in a fresh Node process on the
// CLI bundle (module loading included).
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** Wall seconds and standard output of `evalkit <args...>`; throws when it fails. */
export function runCommand(cli: string, args: string[]): [number, string] {
  const t0 = performance.now();
  const r = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { main } = await import(${JSON.stringify(pathToFileURL(cli).href)}); process.exitCode = await main(process.argv);`,
      'evalkit',
      ...args,
    ],
    { encoding: 'utf8', maxBuffer: 64 << 20 },
  );
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`evalkit ${args.join(' ')} failed: ${r.stderr}`);
  return [seconds, r.stdout];
}
