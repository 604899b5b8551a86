// Child process of bench/validate.ts: loads the CLI bundle given as the first argument (as bin/evalkit.js does), runs
// `evalkit validate FILE --jobs N --format json` in this process, then prints the time spent validating (module
// loading excluded) and the peak RSS as one JSON line on standard error.
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { peakRssMb } from './_peak-rss.mjs';

const [bundle, file, jobs, ...extra] = process.argv.slice(2);
const { main } = await import(pathToFileURL(bundle).href);
let out = '';
const stdout = new Writable({
  write(chunk, _encoding, done) {
    out += String(chunk);
    done();
  },
});
const started = performance.now();
const code = await main(['node', 'evalkit', 'validate', file, '--jobs', jobs, '--format', 'json', ...extra], {
  stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
});
const seconds = (performance.now() - started) / 1000;
const summary = out ? JSON.parse(out).summary : undefined;
process.stderr.write(`${JSON.stringify({ code, seconds, maxRssMb: peakRssMb(), summary })}\n`);
