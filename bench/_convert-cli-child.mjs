// Child process of bench/convert.ts: loads the CLI bundle given as the first argument (as bin/evalkit.js does), runs
// `evalkit <args...>` in this process (plain Node, so its worker threads are the shipped ones), then prints the
// time spent converting (module loading excluded), its CPU time and the peak RSS as one JSON line on standard error.
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { peakRssMb } from './_peak-rss.mjs';

const [bundle, ...args] = process.argv.slice(2);
const { main } = await import(pathToFileURL(bundle).href);
let out = '';
const stdout = new Writable({
  write(chunk, _encoding, done) {
    out += String(chunk);
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
if (code !== 0) throw new Error(`evalkit ${args.join(' ')} exited ${code}: ${out.slice(0, 2000)}`);
const report = JSON.parse(out);
process.stderr.write(
  `${JSON.stringify({
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    maxRssMb: peakRssMb(),
    rows: report.records.reduce((n, r) => n + r.rows, 0),
  })}\n`,
);
