// Shared by the converter benchmarks (bench/convert.ts, bench/convert-inspect.ts): run a task in a child process
// (fresh heap, its own peak RSS) and print converter figures beside the JSON.parse baseline of the same run.
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const TSX = import.meta.resolve('tsx');

export interface ChildFigures {
  seconds: number;
  maxRssMb: number;
  [key: string]: unknown;
}

/** Runs `_convert-child.ts <mode> <args...>` (or another child script; a `.mjs` one without tsx) and returns its figures. */
export function runChild(args: string[], script = join(here, '_convert-child.ts')): Promise<ChildFigures> {
  return new Promise((resolve, reject) => {
    const loader = script.endsWith('.mjs') ? [] : ['--import', TSX];
    const child = spawn(process.execPath, [...loader, script, ...args], {
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const last = err.trim().split('\n').pop() ?? '';
      if (code !== 0) return reject(new Error(`child ${args[0]} exited ${code}: ${err.slice(-2000)}`));
      resolve(JSON.parse(last) as ChildFigures);
    });
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/**
 * Interleaved rounds of the baseline and the conversion (a noisy moment hits both), then one line each:
 * MB/s, the ratio to the baseline (target ≥ 0.5×) and the peak RSS (target < 256 MB).
 */
export async function compareWithBaseline(options: {
  label: string;
  bytes: number;
  baseline: string[];
  convert: string[];
  rounds?: number;
  script?: string;
}): Promise<{ ratio: number; cpuRatio: number; convertRssMb: number }> {
  const base: ChildFigures[] = [];
  const conv: ChildFigures[] = [];
  for (let r = 0; r < (options.rounds ?? 2); r++) {
    base.push(await runChild(options.baseline, options.script));
    conv.push(await runChild(options.convert, options.script));
  }
  const mb = options.bytes / 1024 / 1024;
  const bRate = mb / median(base.map((b) => b.seconds));
  const cRate = mb / median(conv.map((c) => c.seconds));
  const ratio = cRate / bRate;
  // CPU time too: on a shared machine wall time mostly measures the neighbours.
  const bCpu = mb / median(base.map((b) => b.cpuSeconds as number));
  const cCpu = mb / median(conv.map((c) => c.cpuSeconds as number));
  const rss = Math.max(...conv.map((c) => c.maxRssMb));
  const { seconds: _s, maxRssMb: _m, cpuSeconds: _c, ...facts } = conv[0];
  console.log(`${options.label}: ${mb.toFixed(0)} MB input ${JSON.stringify(facts)}`);
  console.log(
    `  baseline JSON.parse of the same bytes: ${bRate.toFixed(0)} MB/s, peak RSS ${Math.max(...base.map((b) => b.maxRssMb)).toFixed(0)} MB`,
  );
  console.log(
    `  evalkit convert (read, map, write pair): ${cRate.toFixed(0)} MB/s = ${ratio.toFixed(2)}× baseline (target ≥ 0.5×), ` +
      `peak RSS ${rss.toFixed(0)} MB (target < 256 MB)`,
  );
  console.log(
    `  by CPU time: baseline ${bCpu.toFixed(0)} MB/s, convert ${cCpu.toFixed(0)} MB/s = ${(cCpu / bCpu).toFixed(2)}× (load average ${loadavg()[0].toFixed(1)} on ${cpus().length} CPUs)`,
  );
  return { ratio, cpuRatio: cCpu / bCpu, convertRssMb: rss };
}
