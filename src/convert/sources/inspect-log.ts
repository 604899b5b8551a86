/**
 * Reading Inspect AI logs (formats 1–3) into plain structures: the header (eval spec, plan, results, stats, status,
 * error), the reductions, and the samples as a stream. A `.eval` log is a ZIP archive: `header.json` (or, for a run
 * that never finished, `_journal/start.json`), `reductions.json`, and one `samples/<id>_epoch_<n>.json` member per
 * sample and epoch, read one member at a time. A `.json` log is one document holding everything.
 */
import { DataError } from '../../errors.js';
import { ZipReader, type ZipEntry } from '../../io/zip.js';
import { fileDigest } from '../read.js';
import { contentDigest } from '../record.js';
import { decodeUtf8 } from '../../io/utf8.js';
import { isObj, parseSourceJson, readSourceJson, type Obj } from '../source-json.js';
import { isRBoxed, unboxRScalars } from './r-boxed.js';

export interface InspectSample {
  sample: Obj;
  /** The file, or `file: member` — for error messages. */
  where: string;
}

export interface InspectLog {
  path: string;
  container: 'eval' | 'json';
  /** version, status, eval, plan, results, stats, error, ... (samples and reductions removed). */
  header: Obj;
  /** Whether the header came from `_journal/start.json` (the run wrote no final header). */
  fromJournal: boolean;
  /** Whether the log was written by R with every scalar boxed in a one-element array (read unboxed). */
  rBoxed?: boolean;
  reductions: Obj[];
  /** sha256 of the log file's bytes (read on demand: a large archive is not hashed unless needed). */
  digest(): Promise<string>;
  /** How many samples the log holds (members or array items), and the highest epoch among them. */
  sampleCount: number;
  maxEpoch: number;
  /** The samples, read again on each call (a `.eval` member at a time). */
  samples(): AsyncIterable<InspectSample>;
}

const SAMPLE_MEMBER = /^samples\/(.+)_epoch_(\d+)\.json$/;

function asReductions(value: unknown, where: string): Obj[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every(isObj))
    throw new DataError(
      'convert.inspect',
      `${where}: reductions must be a list of {scorer, samples} objects`,
    );
  return value;
}

function checkHeader(header: unknown, where: string): Obj {
  if (!isObj(header) || !isObj(header.eval))
    throw new DataError('convert.inspect', `${where}: not an Inspect log header (no "eval" object)`);
  return header;
}

/** The sample members, each name once (its last member). */
function sampleMembers(zip: ZipReader): ZipEntry[] {
  return zip.uniqueEntries().filter((e) => SAMPLE_MEMBER.test(e.name));
}

async function readMemberJson(zip: ZipReader, entry: ZipEntry): Promise<unknown> {
  return parseSourceJson(await zip.readText(entry), `${zip.path}: member ${entry.name}`);
}

export async function openInspectLog(path: string): Promise<InspectLog> {
  if (path.endsWith('.eval')) return openEval(path);
  return openJson(path);
}

async function openJson(path: string): Promise<InspectLog> {
  const read = await readSourceJson(path);
  const rBoxed = isRBoxed(read.value);
  const { text } = read;
  const header = checkHeader(rBoxed ? unboxRScalars(read.value) : read.value, path);
  const samples = header.samples === undefined || header.samples === null ? [] : header.samples;
  if (!Array.isArray(samples) || !samples.every(isObj))
    throw new DataError('convert.inspect', `${path}: "samples" must be a list of objects`);
  const reductions = asReductions(header.reductions, path);
  const rest = { ...header };
  delete rest.samples;
  delete rest.reductions;
  const maxEpoch = samples.reduce((m, s) => Math.max(m, typeof s.epoch === 'number' ? s.epoch : 1), 1);
  return {
    path,
    container: 'json',
    header: rest,
    fromJournal: false,
    ...(rBoxed ? { rBoxed } : {}),
    reductions,
    digest: async () => contentDigest(text),
    sampleCount: samples.length,
    maxEpoch,
    async *samples() {
      for (let i = 0; i < samples.length; i++) yield { sample: samples[i], where: `${path}: samples[${i}]` };
    },
  };
}

async function openEval(path: string): Promise<InspectLog> {
  const zip = await ZipReader.open(path);
  let header: Obj;
  let fromJournal = false;
  let reductions: Obj[] = [];
  let sampleCount = 0;
  let maxEpoch = 1;
  try {
    const headerEntry = zip.entry('header.json') ?? zip.entry('_journal/start.json');
    if (!headerEntry)
      throw new DataError(
        'convert.inspect',
        `${path}: neither header.json nor _journal/start.json is in the archive: not an Inspect .eval log`,
      );
    fromJournal = headerEntry.name !== 'header.json';
    header = checkHeader(await readMemberJson(zip, headerEntry), `${path}: member ${headerEntry.name}`);
    const reductionsEntry = zip.entry('reductions.json');
    if (reductionsEntry)
      reductions = asReductions(
        await readMemberJson(zip, reductionsEntry),
        `${path}: member reductions.json`,
      );
    for (const e of sampleMembers(zip)) {
      sampleCount++;
      maxEpoch = Math.max(maxEpoch, Number(SAMPLE_MEMBER.exec(e.name)![2]));
    }
  } finally {
    await zip.close();
  }
  if (fromJournal && header.status === undefined) header = { ...header, status: 'started' };
  return {
    path,
    container: 'eval',
    header,
    fromJournal,
    reductions,
    digest: () => fileDigest(path),
    sampleCount,
    maxEpoch,
    async *samples() {
      // The directory is read again rather than kept: a log of many samples holds as many entries.
      const reader = await ZipReader.open(path);
      try {
        for await (const { entry, data } of reader.readMany(sampleMembers(reader))) {
          const where = `${path}: member ${entry.name}`;
          const sample = parseSourceJson(decodeUtf8(data, where), where);
          if (!isObj(sample)) throw new DataError('convert.inspect', `${where}: a sample must be an object`);
          yield { sample, where };
        }
      } finally {
        await reader.close();
      }
    },
  };
}
