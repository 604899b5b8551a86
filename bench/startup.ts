// `npm run bench -- startup`: the CLI's start-up, whole commands as a user runs them (`node launcher args`, a fresh
// process each). The CLI as `npm run build` bundles it (split: cli.mjs plus a chunk per command, loaded when that
// command runs) against two baselines in the same run: a bare `node -e 0`, and the same sources bundled into one
// file (every command's code parsed at every start, as before the split). Rounds interleave the three, so a noisy
// moment hits each alike; medians of wall and CPU seconds (user + system, from /usr/bin/time where there is one).
// Targets (issue 32): `--version` ≤ 2× `node -e 0`; no command slower than from the one-file bundle.
// BENCH_STARTUP_ROUNDS rounds (default 10).
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const rounds = Number(process.env.BENCH_STARTUP_ROUNDS ?? 10);
const TIME = '/usr/bin/time';

interface Bundler {
  bundleCli(outdir: string, options?: { split?: boolean }): Promise<string>;
}

/** A bundle under bench/.data/<name> with a launcher like bin/evalkit.js; its path. */
async function bundle(name: string, split: boolean): Promise<string> {
  const { bundleCli } = (await import(pathToFileURL(join(root, 'scripts', 'bundle.mjs')).href)) as Bundler;
  const dir = join(here, '.data', name);
  rmSync(dir, { recursive: true, force: true });
  await bundleCli(dir, { split });
  const launcher = join(dir, 'evalkit.mjs');
  writeFileSync(
    launcher,
    "import { main } from './cli.mjs';\nprocess.exitCode = await main(process.argv);\n",
  );
  return launcher;
}

interface Sample {
  wall: number;
  cpu: number;
}

/** One run of `node argv...`: wall seconds, and CPU seconds where /usr/bin/time can tell them (else NaN). */
function once(argv: string[]): Sample {
  const timed = existsSync(TIME);
  const command = timed ? TIME : process.execPath;
  const args = timed ? ['-f', 'evalkit-bench-cpu %U %S', process.execPath, ...argv] : argv;
  const t0 = performance.now();
  const r = spawnSync(command, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  const wall = (performance.now() - t0) / 1000;
  if (r.status !== 0 && r.status !== 1) throw new Error(`node ${argv.join(' ')} failed: ${r.stderr}`);
  const m = /evalkit-bench-cpu ([\d.]+) ([\d.]+)/.exec(r.stderr);
  return { wall, cpu: m ? Number(m[1]) + Number(m[2]) : NaN };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1];

export async function run(): Promise<void> {
  console.log(
    `machine: ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(2)} (shared with other work)`,
  );
  const split = await bundle('bundle-startup', true);
  const whole = await bundle('bundle-startup-one-file', false);
  const store = join(here, '.data', 'startup-arith.duckdb');
  rmSync(store, { force: true });
  once([split, 'ingest', 'examples/compare', '--db', store]);

  const commands: [string, string[]][] = [
    ['--version', ['--version']],
    ['--help', ['--help']],
    ['validate examples/eee', ['validate', 'examples/eee', '--quiet']],
    ['leaderboard (examples/compare store)', ['leaderboard', '--db', store]],
  ];
  const samples = new Map<string, { bare: Sample[]; split: Sample[]; whole: Sample[] }>();
  for (const [name] of commands) samples.set(name, { bare: [], split: [], whole: [] });
  for (let r = 0; r <= rounds; r++) {
    for (const [name, args] of commands) {
      const s = samples.get(name)!;
      const bare = once(['-e', '0']);
      const a = once([split, ...args]);
      const b = once([whole, ...args]);
      if (r === 0) continue; // warm-up
      s.bare.push(bare);
      s.split.push(a);
      s.whole.push(b);
    }
  }
  const f = (x: number) => (Number.isNaN(x) ? '   n/a' : `${x.toFixed(3)}`);
  console.log(
    `${rounds} interleaved rounds, medians; wall s / CPU s; ratios against \`node -e 0\` and the one-file bundle`,
  );
  for (const [name, s] of samples) {
    const m = (xs: Sample[], k: keyof Sample) => median(xs.map((x) => x[k]));
    const [bw, bc, sw, sc, ww, wc] = [
      m(s.bare, 'wall'),
      m(s.bare, 'cpu'),
      m(s.split, 'wall'),
      m(s.split, 'cpu'),
      m(s.whole, 'wall'),
      m(s.whole, 'cpu'),
    ];
    console.log(
      `${name.padEnd(38)} split ${f(sw)} / ${f(sc)}   one-file ${f(ww)} / ${f(wc)}   node -e 0 ${f(bw)} / ${f(bc)}   ` +
        `split/node ${(sw / bw).toFixed(2)}× wall ${(sc / bc).toFixed(2)}× CPU   ` +
        `split/one-file ${(sw / ww).toFixed(2)}× wall ${(sc / wc).toFixed(2)}× CPU`,
    );
  }
  console.log('target: --version ≤ 2× node -e 0; every command at most as slow as from the one-file bundle');
}
