// Child process of bench/convert.ts: runs `evalkit <args...>` on the CLI bundle given as the first argument (plain
// Node, so its worker threads are the shipped ones), then prints the time spent converting (module loading
// excluded), its CPU time and the peak RSS as one JSON line on standard error.
import { peakRssMb } from './_peak-rss.mjs';
import { runBundledCli } from './_run-cli.mjs';

const [bundle, ...args] = process.argv.slice(2);
const { code, out, seconds, cpuSeconds } = await runBundledCli(bundle, args);
if (code !== 0) throw new Error(`evalkit ${args.join(' ')} exited ${code}: ${out.slice(0, 2000)}`);
const report = JSON.parse(out);
process.stderr.write(
  `${JSON.stringify({
    seconds,
    cpuSeconds,
    maxRssMb: peakRssMb(),
    rows: report.records.reduce((n, r) => n + r.rows, 0),
  })}\n`,
);
