// Child process of bench/validate.ts: runs `evalkit validate FILE --jobs N --format json` on the CLI bundle given as
// the first argument, then prints the time spent validating (wall and CPU, module loading excluded) and the peak RSS
// as one JSON line on standard error.
import { peakRssMb } from './_peak-rss.mjs';
import { runBundledCli } from './_run-cli.mjs';

const [bundle, file, jobs, ...extra] = process.argv.slice(2);
const { code, out, seconds, cpuSeconds } = await runBundledCli(bundle, [
  'validate',
  file,
  '--jobs',
  jobs,
  '--format',
  'json',
  ...extra,
]);
const summary = out ? JSON.parse(out).summary : undefined;
process.stderr.write(`${JSON.stringify({ code, seconds, cpuSeconds, maxRssMb: peakRssMb(), summary })}\n`);
