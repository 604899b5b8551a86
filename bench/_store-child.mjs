// Child process of bench/store.ts: loads the CLI bundle given as the first argument (as bin/evalkit.js does), runs
// `evalkit <args...>` in this process, then prints one JSON line on standard error: the seconds the command took
// (module loading excluded), the CPU seconds of all its threads (DuckDB's included), its exit code and the process's peak RSS (DuckDB's native memory included).
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { peakRssMb } from './_peak-rss.mjs';

const [bundle, ...args] = process.argv.slice(2);
const { main } = await import(pathToFileURL(bundle).href);
let out = '';
const stdout = new Writable({
  write(chunk, _encoding, done) {
    if (out.length < 1 << 20) out += String(chunk);
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
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
process.stderr.write(
  `\n${JSON.stringify({ seconds, cpuSeconds, code, rssMb: peakRssMb(), out: code === 0 ? '' : out.slice(0, 4000) })}\n`,
);
