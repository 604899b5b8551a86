#!/usr/bin/env node
// Replays ../loop/events.jsonl against a running `evalkit retrieval serve` (observations and metric results only,
// re-timed to now), then polls GET /v1/actions: an action appears when a gate fails, and disappears when its TTL
// runs out. Usage: node replay.mjs URL TOKEN   (the two values `retrieval serve --format json` prints).
import { readFileSync } from 'node:fs';

const [url, token] = process.argv.slice(2);
if (!url || !token) {
  console.error('usage: node replay.mjs URL TOKEN');
  process.exit(2);
}
const events = readFileSync(new URL('../loop/events.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line))
  .filter((e) => e.type !== 'feedback_action');
const first = Math.min(...events.map((e) => Date.parse(e.ts)));
const now = Date.now();
// The example's 12 minutes are squeezed into the last minute, keeping their order.
for (const e of events) e.ts = new Date(now - 60_000 + (Date.parse(e.ts) - first) / 12).toISOString();

const res = await fetch(`${url}/v1/events`, {
  method: 'POST',
  headers: { authorization: `Bearer ${token}` },
  body: events.map((e) => JSON.stringify(e)).join('\n'),
});
console.log(`POST /v1/events → ${res.status} ${await res.text()}`);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const actions = async () => (await (await fetch(`${url}/v1/actions`, { headers: { authorization: `Bearer ${token}` } })).json()).actions;
let seen = [];
for (let i = 0; i < 30 && seen.length === 0; i++) {
  await sleep(1000);
  seen = await actions();
}
if (seen.length === 0) {
  console.log('no action after 30 s: is the server running with --thresholds, --policy and a short --gate-interval?');
  process.exit(1);
}
for (const a of seen) console.log(`action ${a.action} on ${JSON.stringify(a.scope)} until ${a.expires_at}: ${a.reason}`);
const until = Math.max(...seen.map((a) => Date.parse(a.expires_at)));
await sleep(Math.max(0, until - Date.now()) + 500);
const left = await actions();
console.log(
  left.some((a) => seen.some((s) => s.id === a.id))
    ? 'still active after its TTL (unexpected)'
    : 'expired: GET /v1/actions no longer lists it (a gate that still fails issues a new one)',
);
