// The cost of the issue-9 guards on hot paths, each beside a baseline measured in the same run: redacting every
// completion (evaluate), neutralising control characters in everything printed (validate on a big tree), and the
// exact scaling path of `stats` on huge scores.
import { fileURLToPath } from 'node:url';
import { neutraliseControls } from '../src/cli/output/terminal-text.js';
import { scoreUncertainty } from '../src/metrics/eee/uncertainty.js';
import { createRedactor } from '../src/io/net/redact.js';

function time(fn: () => void, repeat: number): number {
  fn();
  const t0 = performance.now();
  for (let i = 0; i < repeat; i++) fn();
  return (performance.now() - t0) / repeat;
}

export async function run(): Promise<void> {
  const completion =
    'BAD\n\nThe premises leave room for doubt; the bird may be a penguin.\n\nVerdict: GOOD '.repeat(3);
  const redactor = createRedactor(['sk-test-7f3a9c2e11b84d0f9a6e5c4b3a291807', 'hunter2-password']);
  const n = 200_000;
  let sink = 0;
  const base = time(() => (sink += (completion + ' ').length), n);
  const red = time(() => (sink += redactor.text(completion).length), n);
  console.log(
    `redact one completion (${completion.length} chars): ${(red * 1e6).toFixed(0)} ns vs ${(base * 1e6).toFixed(0)} ns to copy it ` +
      `(at 2,500 samples/s: ${((red * 2500) / 10).toFixed(3)} % of one core)`,
  );

  const line =
    'data/demo/acme/m/3f6c1b2a.json:62:17 error eee.checksum checksum 5b9e… is not the sha256 of …\n';
  const text = line.repeat(Math.ceil((1024 * 1024) / line.length));
  const copy = time(() => (sink += text.replace(/\u0000/g, '').length), 20);
  const safe = time(() => (sink += neutraliseControls(text).length), 20);
  const hostile = text.replace(/eee\.checksum/g, 'eee\u001b[2J');
  const safeHostile = time(() => (sink += neutraliseControls(hostile).length), 20);
  console.log(
    `neutralise 1 MiB of output: ${safe.toFixed(2)} ms clean, ${safeHostile.toFixed(2)} ms with an escape on every line ` +
      `vs ${copy.toFixed(2)} ms for one regex pass (baseline)`,
  );

  const scores = Array.from({ length: 100_000 }, (_, i) => (i % 7) / 7);
  const huge = scores.map((s) => s * 1e308);
  const normal = time(() => (sink += scoreUncertainty(scores, { iterations: 1000 }).mean), 5);
  const scaled = time(() => (sink += scoreUncertainty(huge, { iterations: 1000 }).mean), 5);
  console.log(
    `stats on 100,000 scores, 1,000 resamples: ${scaled.toFixed(1)} ms near 1e308 (scaled) vs ${normal.toFixed(1)} ms ordinary`,
  );
  if (sink === 0) console.log('');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
