// `npm run bench -- retrieval-serve`: `evalkit retrieval serve` under load. 50 concurrent keep-alive clients on
// loopback each POST one event at a time for BENCH_SERVE_SECONDS (default 60); the figures are events
// acknowledged per second (each committed to the store before its answer) and the answer latency p50/p99.
// Baseline, measured in the same run with the same clients: a bare Node HTTP server that reads each body and
// answers without checking or storing anything (what HTTP alone costs on this machine).
// Targets: ≥ 2,000 events/s sustained with p99 < 100 ms.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { quantileType7 } from '../src/metrics/stats/descriptive.js';

const root = join(fileURLToPath(import.meta.url), '..', '..');
const TOKEN = 'bench-token-0123456789';
const CLIENTS = 50;

function startChild(argv: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, argv, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) =>
      resolve({ child, url: (JSON.parse(line) as { url: string }).url }),
    );
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

const BARE_SERVER = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const text = JSON.stringify({ accepted: 1, rejected: [] });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + server.address().port })));
`;

interface Load {
  events: number;
  seconds: number;
  latencies: number[];
  failures: number;
}

async function drive(url: string, seconds: number): Promise<Load> {
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const { hostname, port } = new URL(url);
  let counter = 0;
  let failures = 0;
  const latencies: number[] = [];
  const until = Date.now() + seconds * 1000;
  const post = (body: string): Promise<number> =>
    new Promise((resolve) => {
      const req = request(
        {
          agent,
          hostname,
          port,
          path: '/v1/events',
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve(res.statusCode === 200 && text.startsWith('{"accepted":1') ? 1 : 0));
        },
      );
      req.on('error', () => resolve(0));
      req.end(body);
    });
  const client = async (c: number): Promise<void> => {
    while (Date.now() < until) {
      const i = counter++;
      const body =
        JSON.stringify({
          type: 'evaluation_observation',
          request_id: `bench-${c}-${i}`,
          layer: `L${i % 3}`,
          tool_id: `tool-${c % 5}`,
          model_id: 'embed-small',
          ts: new Date().toISOString(),
          latency_ms: (i * 7919) % 1000,
          retrieved_ids: ['doc:a', 'doc:b', 'doc:c', 'doc:d', 'doc:e'],
          outcome: i % 50 === 0 ? 'error' : 'ok',
        }) + '\n';
      const t = performance.now();
      const ok = await post(body);
      latencies.push(performance.now() - t);
      if (!ok) failures++;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
  const elapsed = (Date.now() - started) / 1000;
  agent.destroy();
  return { events: latencies.length - failures, seconds: elapsed, latencies, failures };
}

function describe(name: string, load: Load): string {
  const sorted = [...load.latencies].sort((a, b) => a - b);
  const rate = load.events / load.seconds;
  return (
    `${name.padEnd(34)} ${Math.round(rate).toLocaleString('en').padStart(7)} events/s  ` +
    `p50 ${quantileType7(sorted, 0.5).toFixed(1).padStart(6)} ms  p99 ${quantileType7(sorted, 0.99).toFixed(1).padStart(6)} ms` +
    (load.failures ? `  (${load.failures} failed)` : '')
  );
}

export async function run(): Promise<void> {
  const seconds = Number(process.env.BENCH_SERVE_SECONDS ?? 60);
  const temp = mkdtempSync(join(tmpdir(), 'evalkit-bench-serve-'));
  console.log(
    `machine: ${cpus().length} cores, load ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}; ${CLIENTS} keep-alive clients, one event per POST`,
  );
  try {
    const bare = await startChild(['-e', BARE_SERVER]);
    const baseline = await drive(bare.url, Math.min(10, seconds));
    bare.child.kill();
    const db = join(temp, 'serve.duckdb');
    const served = await startChild([
      '--import',
      'tsx',
      'src/cli/bin.ts',
      'retrieval',
      'serve',
      '--db',
      db,
      '--port',
      '0',
      '--token',
      TOKEN,
      '--format',
      'json',
    ]);
    await drive(served.url, 2); // warm-up (JIT, first commits)
    const load = await drive(served.url, seconds);
    served.child.kill('SIGTERM');
    await new Promise((r) => served.child.once('exit', r));
    console.log(describe('baseline: bare HTTP, no store', baseline));
    console.log(describe(`retrieval serve (${seconds} s)`, load));
    const sorted = [...load.latencies].sort((a, b) => a - b);
    const rate = load.events / load.seconds;
    const p99 = quantileType7(sorted, 0.99);
    console.log(
      `serve/baseline throughput: ${(rate / (baseline.events / baseline.seconds)).toFixed(2)}×; ` +
        `targets ≥ 2,000 events/s: ${rate >= 2000 ? 'met' : 'NOT met'}, p99 < 100 ms: ${p99 < 100 ? 'met' : 'NOT met'}; ` +
        `store ${(statSync(db).size / 1024 / 1024).toFixed(1)} MB`,
    );
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}
