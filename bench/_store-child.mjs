// Child process of bench/store.ts: runs `evalkit <args...>` on the CLI bundle given as the first argument, then prints
// one JSON line on standard error: the seconds the command took (module loading excluded), the CPU seconds of all
// its threads (DuckDB's included), its exit code and the process's peak RSS (DuckDB's native memory included).
import { peakRssMb } from './_peak-rss.mjs';
import { runBundledCli } from './_run-cli.mjs';

const [bundle, ...args] = process.argv.slice(2);
const { code, out, seconds, cpuSeconds } = await runBundledCli(bundle, args, { maxOut: 1 << 20 });
process.stderr.write(
  `\n${JSON.stringify({ seconds, cpuSeconds, code, rssMb: peakRssMb(), out: code === 0 ? '' : out.slice(0, 4000) })}\n`,
);
