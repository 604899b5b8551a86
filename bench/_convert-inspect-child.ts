// Child process of bench/convert-inspect.ts: converts one Inspect log into a datastore in this process, then prints
// the time spent converting (module loading excluded; wall and CPU), the rows written and the peak RSS as one JSON line on stderr.
import { convertPaths, isConvertFailure, writeConverted } from '../src/convert/index.js';

const [file, out] = process.argv.slice(2);
const started = performance.now();
const cpu0 = process.cpuUsage();
let rows = 0;
for await (const item of convertPaths([file], { from: 'inspect' })) {
  if (isConvertFailure(item)) throw item.error;
  rows += (await writeConverted(item, out, { force: true })).totalRows;
}
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpu0);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
process.stderr.write(
  `${JSON.stringify({ seconds, cpuSeconds, rows, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`,
);
