// Child process of bench/validate.ts: runs the real CLI (`evalkit validate FILE --jobs N --format json`) in this
// process, then prints timing and peak RSS as one JSON line on stderr.
import { Writable } from 'node:stream';
import { main } from '../src/cli/main.js';

const [file, jobs, ...extra] = process.argv.slice(2);
let out = '';
const stdout = new Writable({
  write(chunk, _e, done) {
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
process.stderr.write(
  `${JSON.stringify({ code, seconds, maxRssMb: process.resourceUsage().maxRSS / 1024, summary })}\n`,
);
