#!/usr/bin/env node
// `npm run quickstart`: the main job on the shipped examples, end to end, with the built CLI:
// validate records → run a benchmark and a task of your own (replayed model answers, no network) → metrics → HTML report → EEE uncertainty
// → convert other tools' outputs → one DuckDB store → leaderboard → paired comparison → the viewer as a static site.
// Everything it writes goes to quickstart-output/.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';

const out = 'quickstart-output';
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const steps = [
  [
    'Validate the example records (schemas + datastore integrity)',
    [
      'validate',
      'examples/eee/data',
      'examples/infereval/benchmark.json',
      'examples/infereval/evaluation.json',
      'examples/retrieval/gold.jsonl',
      'examples/retrieval/results.jsonl',
      'examples/retrieval/events.jsonl',
      'examples/bench-output/outputs',
    ],
  ],
  [
    'Run an infereval benchmark (replayed answers; journaled, resumable)',
    [
      'evaluate',
      'examples/run/birds.benchmark.json',
      '--provider',
      'replay',
      '--replay-from',
      'examples/run/birds.fixture.jsonl',
      '--model',
      'demo-model',
      '-o',
      `${out}/birds.eta.json`,
      '--log',
      `${out}/birds.run.jsonl`,
      '--eee-out',
      `${out}/eee`,
    ],
  ],
  [
    'Validate what the run wrote (η + EEE datastore pair)',
    ['validate', `${out}/birds.eta.json`, `${out}/eee`],
  ],
  [
    'Run your own task (a dataset, a prompt, scorers) on two models, straight into EEE records (replayed answers)',
    [
      'run',
      'examples/task/arith.task.yaml',
      '--provider',
      'replay',
      '--replay-from',
      'examples/task/arith.fixture.jsonl',
      '--model',
      'demo-small',
      '--model',
      'demo-large',
      '--model-map',
      'examples/task/models.json',
      '-o',
      `${out}/runs`,
    ],
  ],
  [
    'An agent task: tools, turns and limits, trajectory scorers, EEE agentic rows (replayed trajectories)',
    [
      'run',
      'examples/agent/trips.task.yaml',
      '--provider',
      'replay',
      '--replay-from',
      'examples/agent/trips.fixture.jsonl',
      '--model',
      'demo-small',
      '--model',
      'demo-large',
      '--model-map',
      'examples/agent/models.json',
      '-o',
      `${out}/runs`,
    ],
  ],
  [
    'Agreement metrics with a seeded subsampling CI',
    ['metrics', 'examples/infereval/evaluation.json', '--ci', '--ci-seed', '7'],
  ],
  [
    'Construct-validity report (HTML + Markdown)',
    [
      'report',
      'examples/report/evaluation.json',
      '--retest',
      'examples/report/retest.json',
      '--sweep',
      'examples/report/sweep.json',
      '--html',
      `${out}/report.html`,
      '--markdown',
      `${out}/report.md`,
    ],
  ],
  [
    'EEE uncertainty (mean, SE, Wilson, bootstrap CI)',
    [
      'stats',
      'examples/eee/data/demo-bench/acme/tiny-model-1b/7c2f4e1a-93b5-4d6e-8a0f-2b1c3d4e5f60.json',
      '-o',
      `${out}/aggregate.with-uncertainty.json`,
    ],
  ],
  [
    "Convert other tools' outputs (lm-evaluation-harness, OpenAI evals) into EEE 0.3.0 records",
    ['convert', 'examples/convert', '-o', `${out}/converted`],
  ],
  [
    'Store everything in one DuckDB file (validated first; idempotent)',
    [
      'ingest',
      'examples/compare',
      'examples/eee/data',
      `${out}/converted`,
      `${out}/eee`,
      `${out}/runs`,
      '--db',
      `${out}/evalkit.duckdb`,
    ],
  ],
  [
    'Leaderboard per benchmark: 95% CIs and significance tiers',
    ['leaderboard', '--benchmark', 'arith-40', '--db', `${out}/evalkit.duckdb`],
  ],
  [
    'Is model A really better than model B? Paired test, McNemar, clustered SE, bootstrap',
    [
      'compare',
      'acme/tiny-model-3b',
      'acme/tiny-model-1b',
      '--cluster-by',
      'category',
      '--bootstrap',
      '2000',
      '--seed',
      '1',
      '--db',
      `${out}/evalkit.duckdb`,
    ],
  ],
  [
    'The two models of your own task, paired on every sample',
    ['compare', 'demo/demo-large', 'demo/demo-small', '--db', `${out}/evalkit.duckdb`],
  ],
  [
    'The viewer as a static site (serve it with any static file server)',
    ['view', '--db', `${out}/evalkit.duckdb`, '--export', `${out}/site`],
  ],
];

// Bold titles on a terminal only (the same rule as the CLI's colours): a log file gets no escape codes.
const bold =
  process.env.NO_COLOR || !process.stdout.isTTY || process.env.TERM === 'dumb'
    ? (text) => text
    : (text) => `\x1b[1m${text}\x1b[0m`;

for (const [title, args] of steps) {
  console.log(`\n${bold(`▶ ${title}`)}\n$ npx evalkit ${args.join(' ')}`);
  const r = spawnSync(process.execPath, ['bin/evalkit.js', ...args], { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`\nquickstart: step failed (exit ${r.status}): npx evalkit ${args.join(' ')}`);
    process.exit(r.status ?? 1);
  }
}
console.log(
  `\nquickstart: done. Open ${out}/report.html in a browser; browse the store with ` +
    `\`npx evalkit view --db ${out}/evalkit.duckdb\`, or serve ${out}/site with \`python3 -m http.server -d ${out}/site\`.`,
);
