// The load generator of `npm run bench -- view`, run in a worker thread (its own event loop, beside the server's):
// `clients` keep-alive connections, each sending GET `url` again as soon as its answer is read, for `seconds`.
// Posts back {requests, seconds, errors, p50, p99} (latencies in ms).
import { Agent, request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { url, clients, seconds } = workerData;
const agent = new Agent({ keepAlive: true, maxSockets: clients });
const latencies = [];
let errors = 0;
const until = performance.now() + seconds * 1000;

function once() {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = request(url, { agent }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => {
        if (res.statusCode === 200) latencies.push(performance.now() - started);
        else errors++;
        resolve();
      });
    });
    req.on('error', () => {
      errors++;
      resolve();
    });
    req.end();
  });
}

async function client() {
  while (performance.now() < until) await once();
}

const started = performance.now();
await Promise.all(Array.from({ length: clients }, client));
const elapsed = (performance.now() - started) / 1000;
agent.destroy();
latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
parentPort.postMessage({ requests: latencies.length, seconds: elapsed, errors, p50: at(0.5), p99: at(0.99) });
