// Child process of bench/convert.ts (and bench/convert-inspect.ts): runs one measured task in a fresh process so
// that its peak RSS is its own, then prints {seconds, maxRssMb, ...} as one JSON line on standard error.
//   convert <out-root> <path>...   evalkit's converter (convertPaths + writeConverted), every record written
//   parse-jsonl <file>             the baseline: the same bytes split into lines and JSON.parse'd, nothing kept
//   parse-eval <file.eval>         the Inspect baseline: every sample member inflated and JSON.parse'd
//   floor-jsonl <file> <out>       what any converter of a samples file must do besides building its rows (below)
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { convertPaths, isConvertFailure } from '../src/convert/index.js';
import { BlockEncoder } from '../src/convert/row-blocks.js';
import { writeAll, writeConverted } from '../src/convert/write.js';
import { readJsonlFile } from '../src/io/jsonl.js';
import { ZipReader } from '../src/io/zip.js';
import { sampleHash } from '../src/formats/eee/sample-hash.js';
import { peakRssMb } from './_peak-rss.mjs';

const [mode, ...args] = process.argv.slice(2);
const started = performance.now();
const cpuStart = process.cpuUsage();
const extra: Record<string, unknown> = {};
if (mode === 'convert') {
  const [root, ...paths] = args;
  let records = 0;
  let rows = 0;
  // CONVERT_JOBS=1 converts in one thread (to compare with the worker pool).
  const jobs = process.env.CONVERT_JOBS === undefined ? undefined : Number(process.env.CONVERT_JOBS);
  for await (const item of convertPaths(paths, { parallel: { jobs } })) {
    if (isConvertFailure(item)) throw item.error;
    const outcome = await writeConverted(item, root, { force: true });
    records++;
    rows += outcome.totalRows;
  }
  Object.assign(extra, { records, rows });
} else if (mode === 'parse-jsonl') {
  let lines = 0;
  for await (const batch of readJsonlFile(args[0]))
    for (const l of batch) {
      JSON.parse(l.bytes.toString('utf8'));
      lines++;
    }
  extra.lines = lines;
} else if (mode === 'floor-jsonl') {
  // A lower bound for converting a samples file of bench/convert.ts, in one thread: the baseline's work (each line
  // decoded and JSON.parse'd), the canonical sample_hash of its prompt, and an output as large as the line itself
  // (the real row is larger) encoded, sha256'd (the aggregate's checksum), written and fsync'd. Nothing is
  // spent on building the row: no mapping, no re-escaped doc, no row text.
  const [file, out] = args;
  const fd = openSync(out, 'w');
  const hash = createHash('sha256');
  const encoder = new BlockEncoder();
  const write = (bytes: Uint8Array): void => {
    hash.update(bytes);
    writeAll(fd, bytes);
  };
  let lines = 0;
  for await (const batch of readJsonlFile(file))
    for (const l of batch) {
      const text = l.bytes.toString('utf8');
      const line = JSON.parse(text) as { arguments: { gen_args_0: { arg_0: string } }; target: string };
      sampleHash({ raw: line.arguments.gen_args_0.arg_0, reference: [line.target] });
      const done = encoder.add(text);
      if (done) write(done.bytes);
      lines++;
    }
  const rest = encoder.take();
  if (rest) write(rest.bytes);
  hash.digest('hex');
  const syncStarted = performance.now();
  fsyncSync(fd);
  closeSync(fd);
  Object.assign(extra, { lines, fsyncSeconds: (performance.now() - syncStarted) / 1000 });
} else if (mode === 'parse-eval') {
  // The Inspect baseline: every sample member of a .eval archive read (inflated) and JSON.parse'd, nothing kept.
  const zip = await ZipReader.open(args[0]);
  let members = 0;
  for await (const { data } of zip.readMany(zip.entries.filter((e) => e.name.startsWith('samples/')))) {
    JSON.parse(data.toString('utf8'));
    members++;
  }
  await zip.close();
  extra.members = members;
} else throw new Error(`unknown mode ${mode}`);
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuStart);
process.stderr.write(
  `${JSON.stringify({ seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, maxRssMb: peakRssMb(), ...extra })}\n`,
);
