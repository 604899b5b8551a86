// What the bench children share: load the CLI bundle (as bin/evalkit.js does) and run `evalkit <args...>` in this
// process through `main(argv, io)`, keeping what it prints on standard output (at most `maxOut` characters) and
// timing the command alone (module loading excluded): wall seconds and the CPU seconds of all its threads.
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';

/** @returns {Promise<{ code: number, out: string, seconds: number, cpuSeconds: number }>} */
export async function runBundledCli(bundle, args, { maxOut = Infinity } = {}) {
  const { main } = await import(pathToFileURL(bundle).href);
  let out = '';
  const stdout = new Writable({
    write(chunk, _encoding, done) {
      if (out.length < maxOut) out += String(chunk);
      done();
    },
  });
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  const code = await main(['node', 'evalkit', ...args], {
    stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  });
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  return { code, out, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
}
