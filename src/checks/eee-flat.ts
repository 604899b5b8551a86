/**
 * The checks of an EEE flat datastore (src/formats/eee/flat.ts): every row of every index
 * `flat/indexes/by_collection/<collection>.jsonl` is checked — its shape, that the object it names exists with that
 * sha256 and size, that the uuid is the object's file name, that `legacy_path` agrees with the record's collection,
 * developer and model, that `record_type` and `eval_schema_version` agree with the record — and every file under
 * `flat/objects/` that no index row names is reported. The objects themselves are validated as documents like any
 * other file. Findings are Diagnostics in the style of the tree checks (src/checks/eee-tree.ts).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, open, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { Diagnostic } from '../diagnostics.js';
import {
  FLAT_DIR,
  FLAT_INDEXES,
  FLAT_OBJECTS,
  flatInstancePath,
  flatObjectPath,
  instanceReference,
  isSafeRelativePath,
} from '../formats/eee/flat.js';
import { legacyPathProblems, UUID4 } from './names.js';
import { Findings, WHOLE_FILE } from './report.js';
import { isJsonObject, type JsonObject } from '../io/json-value.js';

const INDEX_FILE = new RegExp(
  `(?:^|[/\\\\])${FLAT_INDEXES.replace(/\//g, '[/\\\\]')}[/\\\\][^/\\\\]+\\.jsonl$`,
);
const UUID_RE = new RegExp(`^${UUID4}$`);

/** Whether an absolute path is a flat datastore's collection index. */
export function isFlatIndexFile(path: string): boolean {
  return INDEX_FILE.test(path);
}

/** Whether an absolute path is an object of a flat datastore (`…/flat/objects/…`). */
export function isFlatObjectPath(path: string): boolean {
  const parts = path.split(sep);
  const i = parts.lastIndexOf('flat');
  return i >= 0 && parts[i + 1] === 'objects' && parts.length > i + 2;
}

/** The flat datastore roots (folders holding `flat/`) that the given absolute paths lie in. */
export function flatRootsOf(paths: string[]): string[] {
  const roots = new Set<string>();
  for (const p of paths) {
    const parts = p.split(sep);
    const i = parts.lastIndexOf('flat');
    if (i >= 0 && (parts[i + 1] === 'indexes' || parts[i + 1] === 'objects'))
      roots.add(parts.slice(0, i).join(sep) || sep);
  }
  return [...roots].sort();
}

/**
 * Whether a row has the shape of a flat index row (an object naming `object_path`, `object_uuid`, `sha256` and
 * `size_bytes`): how an index lying outside `flat/indexes/by_collection/` is recognised by its content, such as
 * the `aggregate.jsonl` that upstream's community-evals converter reads (rows of the datastore's index, their
 * `object_path` relative to the datastore).
 */
export function looksLikeFlatIndexRow(row: unknown): boolean {
  return (
    isJsonObject(row) &&
    'object_path' in row &&
    'object_uuid' in row &&
    'sha256' in row &&
    'size_bytes' in row
  );
}

/** Whether a `.jsonl` file lying anywhere is an index of flat rows, from its first non-blank line. */
export async function isLooseFlatIndexFile(path: string): Promise<boolean> {
  if (!/\.jsonl$/i.test(path) || isFlatIndexFile(path)) return false;
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return false;
  try {
    const buffer = Buffer.alloc(65536);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const line = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .split('\n')
      .find((l) => l.trim() !== '');
    if (line === undefined) return false;
    try {
      return looksLikeFlatIndexRow(JSON.parse(line));
    } catch {
      return false;
    }
  } finally {
    await handle.close();
  }
}

/**
 * The datastore an index lying outside `flat/indexes/` belongs to: its own folder when that holds `flat/`, else
 * the one folder beside it that holds `flat/` (upstream's converter fixture: `aggregate.jsonl` beside `datastore/`),
 * else its own folder (its objects are then reported missing).
 */
export async function looseIndexRoot(indexFile: string): Promise<string> {
  const dir = dirname(resolve(indexFile));
  const holdsFlat = async (d: string): Promise<boolean> =>
    (await stat(join(d, FLAT_DIR)).catch(() => undefined))?.isDirectory() === true;
  if (await holdsFlat(dir)) return dir;
  const siblings = (await readdir(dir, { withFileTypes: true }).catch(() => []))
    .filter((e) => e.isDirectory())
    .map((e) => join(dir, e.name));
  const found: string[] = [];
  for (const s of siblings) if (await holdsFlat(s)) found.push(s);
  return found.length === 1 ? found[0] : dir;
}

/** Loose indexes (absolute paths) by the datastore root they belong to. */
export async function looseIndexesByRoot(indexFiles: string[]): Promise<Map<string, string[]>> {
  const byRoot = new Map<string, string[]>();
  for (const f of [...new Set(indexFiles.map((p) => resolve(p)))].sort()) {
    const root = await looseIndexRoot(f);
    byRoot.set(root, [...(byRoot.get(root) ?? []), f]);
  }
  return byRoot;
}

/** One row of a collection index, as read. */
export interface FlatIndexEntry {
  /** Absolute path of the index file. */
  indexFile: string;
  collection: string;
  line: number;
  text: string;
  row: unknown;
}

/**
 * Every row of every collection index of a flat datastore root, in file then line order, then the rows of the
 * loose indexes given for it (their collection is each row's `benchmark`).
 */
export async function readFlatIndexes(root: string, loose: string[] = []): Promise<FlatIndexEntry[]> {
  const dir = join(root, FLAT_INDEXES);
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.jsonl')).sort();
  const files = [
    ...names.map((name) => ({ indexFile: join(dir, name), collection: name.slice(0, -'.jsonl'.length) })),
    ...loose.map((indexFile) => ({ indexFile: resolve(indexFile), collection: undefined })),
  ];
  const entries: FlatIndexEntry[] = [];
  for (const { indexFile, collection } of files) {
    const text = await readFile(indexFile, 'utf8');
    let line = 0;
    for (const raw of text.split('\n')) {
      const lineText = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      line++;
      if (lineText.trim() === '') continue;
      let row: unknown;
      try {
        row = JSON.parse(lineText);
      } catch {
        row = undefined;
      }
      const benchmark = isJsonObject(row) && typeof row.benchmark === 'string' ? row.benchmark : '';
      entries.push({ indexFile, collection: collection ?? benchmark, line, text: lineText, row });
    }
  }
  return entries;
}

/** sha256 (hex) and size of a file, streamed; undefined when it is not a readable regular file. */
export async function fileSha256(path: string): Promise<{ sha256: string; size: number } | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), size };
}

async function listObjects(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const child = join(dir, e.name);
      if (e.isDirectory()) await walk(child);
      else out.push(relative(root, child).split(sep).join('/'));
    }
  };
  await walk(join(root, FLAT_OBJECTS));
  return out.sort();
}

const REQUIRED_STRINGS = [
  'benchmark',
  'eval_schema_version',
  'legacy_path',
  'object_path',
  'object_uuid',
  'record_type',
  'sha256',
] as const;

const isSha256 = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);
const isSize = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Runs the flat datastore checks over each root; every finding as a Diagnostic. */
export async function checkEeeFlat(
  roots: string[],
  loose: Map<string, string[]> = new Map(),
): Promise<Diagnostic[]> {
  const findings = new Findings();
  const all = [...new Set([...roots, ...loose.keys()])].sort();
  for (const root of all) await checkRoot(root, findings, loose.get(root) ?? []);
  return findings.diagnostics();
}

/** Where an object of the index lies: a regular file inside the datastore, or why it is not one. */
type ObjectFile = { sha256: string; size: number } | 'missing' | 'escapes';

/**
 * The object at a safe relative path of the datastore: hashed once however many rows name it. A symbolic link (or
 * a path through a linked folder) that leaves the datastore is never read.
 */
function objectReader(root: string): (rel: string) => Promise<ObjectFile> {
  const seen = new Map<string, Promise<ObjectFile>>();
  const realRoot = realpath(root).catch(() => resolve(root));
  const read = async (rel: string): Promise<ObjectFile> => {
    const abs = join(root, ...rel.split('/'));
    const info = await lstat(abs).catch(() => undefined);
    if (!info) return 'missing';
    const real = await realpath(abs).catch(() => undefined);
    const base = await realRoot;
    if (info.isSymbolicLink() || !real || !real.startsWith(base.endsWith(sep) ? base : base + sep))
      return 'escapes';
    return (await fileSha256(abs)) ?? 'missing';
  };
  return (rel) => {
    let found = seen.get(rel);
    if (!found) seen.set(rel, (found = read(rel)));
    return found;
  };
}

/** Where a finding about an index row points. */
type RowAt = (
  pointer: string,
  severity?: 'error' | 'warning',
) => { text: string; firstLine: number; pointer: string; severity: 'error' | 'warning' };

async function checkRoot(root: string, findings: Findings, loose: string[]): Promise<void> {
  const named = new Set<string>();
  const object = objectReader(root);
  // The first row of each object path; rows repeating one (same bytes) are one diagnostic per object.
  const first = new Map<string, { entry: FlatIndexEntry; at: RowAt }>();
  const repeats = new Map<string, number[]>();
  for (const entry of await readFlatIndexes(root, loose)) {
    const at: RowAt = (pointer, severity = 'error') => ({
      text: entry.text,
      firstLine: entry.line,
      pointer,
      severity,
    });
    const row = checkRowShape(entry, at, findings);
    if (!row) continue;
    const instance = instanceReference(row);
    named.add(row.object_path);
    if (instance) named.add(instance.path as string);

    const earlier = first.get(row.object_path);
    if (earlier) {
      if (earlier.entry.collection !== entry.collection) {
        const message = `the record ${row.object_uuid} is indexed in two collections (${earlier.entry.collection}, line ${earlier.entry.line} of ${basename(earlier.entry.indexFile)}; ${entry.collection}, line ${entry.line} of ${basename(entry.indexFile)}): a record belongs to one collection`;
        findings.add(earlier.entry.indexFile, 'eee.flat-collections', message, earlier.at('/object_uuid'));
        findings.add(entry.indexFile, 'eee.flat-collections', message, at('/object_uuid'));
      } else if (earlier.entry.text === entry.text) {
        const lines = repeats.get(row.object_path) ?? [];
        lines.push(entry.line);
        repeats.set(row.object_path, lines);
      } else
        findings.add(
          entry.indexFile,
          'eee.flat-duplicate',
          `a second row for ${row.object_path} (the first is line ${earlier.entry.line}) that says something else`,
          at('/object_path'),
        );
      continue;
    }
    first.set(row.object_path, { entry, at });

    // The uuid is the object's file name, and the object lies where its uuid puts it.
    if (
      basename(row.object_path) !== `${row.object_uuid}.json` ||
      row.object_path !== flatObjectPath(row.object_uuid)
    )
      findings.add(
        entry.indexFile,
        'eee.flat-uuid',
        `object_path ${row.object_path} is not ${flatObjectPath(row.object_uuid)} (the path of object_uuid ${row.object_uuid})`,
        at('/object_path'),
      );
    if (instance && instance.path !== flatInstancePath(row.object_uuid))
      findings.add(
        entry.indexFile,
        'eee.flat-uuid',
        `the instance object ${String(instance.path)} is not ${flatInstancePath(row.object_uuid)}`,
        at(instance.pointer),
      );

    const checkObject = async (
      rel: string,
      what: string,
      size: unknown,
      sha256: unknown,
      pointers: { path: string; size: string; sha256: string },
    ): Promise<boolean> => {
      const found = await object(rel);
      if (found === 'missing' || found === 'escapes') {
        findings.add(
          entry.indexFile,
          found === 'missing' ? 'eee.flat-missing' : 'eee.flat-escape',
          found === 'missing'
            ? `the ${what} ${rel} does not exist`
            : `the ${what} ${rel} is a symbolic link or leads outside the datastore: objects are the datastore's own files`,
          at(pointers.path),
        );
        return false;
      }
      if (found.size !== size)
        findings.add(
          entry.indexFile,
          'eee.flat-size',
          `the ${what} ${rel} has ${found.size} bytes, the index says ${String(size)}`,
          at(pointers.size),
        );
      if (found.sha256 !== sha256)
        findings.add(
          entry.indexFile,
          'eee.flat-hash',
          `the ${what} ${rel} has sha256 ${found.sha256}, the index says ${String(sha256)}`,
          at(pointers.sha256),
        );
      return true;
    };
    if (
      await checkObject(row.object_path, 'object', row.size_bytes, row.sha256, {
        path: '/object_path',
        size: '/size_bytes',
        sha256: '/sha256',
      })
    )
      await checkAgainstRecord(join(root, ...row.object_path.split('/')), row, entry, findings, at);
    if (instance)
      await checkObject(instance.path as string, 'instance object', instance.size, instance.sha256, {
        path: instance.pointer,
        size: instance.pointer,
        sha256: instance.pointer,
      });
  }
  for (const [objectPath, lines] of repeats) {
    const { entry, at } = first.get(objectPath)!;
    const shown = lines.slice(0, 5).join(', ') + (lines.length > 5 ? `, … (${lines.length} in all)` : '');
    findings.add(
      entry.indexFile,
      'eee.flat-duplicate',
      `this row is repeated on ${lines.length} more line(s) (${shown}): each record is one row`,
      at('/object_path', 'warning'),
    );
  }
  for (const objectRel of await listObjects(root))
    if (!named.has(objectRel))
      findings.add(
        join(root, ...objectRel.split('/')),
        'eee.flat-orphan',
        'no index row names this object',
        WHOLE_FILE,
      );
}

/** An index row whose fields have the shapes they must have, or undefined (each fault reported). */
function checkRowShape(
  entry: FlatIndexEntry,
  at: RowAt,
  findings: Findings,
):
  | (JsonObject & {
      object_path: string;
      object_uuid: string;
      legacy_path: string;
      sha256: string;
      size_bytes: number;
    })
  | undefined {
  const row = entry.row;
  if (!isJsonObject(row)) {
    findings.add(entry.indexFile, 'eee.flat-index', 'the index line is not a JSON object', at(''));
    return undefined;
  }
  let shapeOk = true;
  const fault = (message: string, pointer: string): void => {
    findings.add(entry.indexFile, 'eee.flat-index', message, at(pointer));
    shapeOk = false;
  };
  for (const key of REQUIRED_STRINGS)
    if (typeof row[key] !== 'string' || row[key] === '')
      fault(`"${key}" is missing or not a non-empty string`, `/${key}`);
  if (!isSize(row.size_bytes)) fault('"size_bytes" is missing or not a non-negative integer', '/size_bytes');
  if (typeof row.sha256 === 'string' && row.sha256 !== '' && !isSha256(row.sha256))
    fault('"sha256" is not 64 lowercase hex digits', '/sha256');
  if (typeof row.object_uuid === 'string' && row.object_uuid !== '' && !UUID_RE.test(row.object_uuid))
    fault(`"object_uuid" ${JSON.stringify(row.object_uuid)} is not a lowercase UUID4`, '/object_uuid');
  for (const key of ['object_path', 'legacy_path'] as const)
    if (typeof row[key] === 'string' && row[key] !== '' && !isSafeRelativePath(row[key] as string))
      fault(`"${key}" ${JSON.stringify(row[key])} leaves the datastore`, `/${key}`);
  const instance = instanceReference(row);
  if (instance) {
    if (typeof instance.path !== 'string' || !isSafeRelativePath(instance.path))
      fault('the instance object path is missing or leaves the datastore', instance.pointer);
    if (!isSha256(instance.sha256) || !isSize(instance.size))
      fault('the instance object needs a sha256 (64 hex digits) and a size in bytes', instance.pointer);
  }
  return shapeOk ? (row as ReturnType<typeof checkRowShape>) : undefined;
}

async function checkAgainstRecord(
  objectAbs: string,
  row: JsonObject & { legacy_path: string; object_uuid: string; object_path: string },
  entry: FlatIndexEntry,
  findings: Findings,
  at: RowAt,
): Promise<void> {
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(objectAbs, 'utf8'));
  } catch {
    return; // the object's own validation reports it
  }
  if (!isJsonObject(doc)) return;
  const isAggregate = 'evaluation_results' in doc && 'model_info' in doc;
  if (row.record_type !== 'aggregate' || !isAggregate)
    findings.add(
      entry.indexFile,
      'eee.flat-record-type',
      `record_type is ${JSON.stringify(row.record_type)} but the object is ${isAggregate ? 'an aggregate record' : 'not an aggregate record'}`,
      at('/record_type'),
    );
  if (typeof doc.schema_version === 'string' && doc.schema_version !== row.eval_schema_version)
    findings.add(
      entry.indexFile,
      'eee.flat-record-type',
      `eval_schema_version is ${JSON.stringify(row.eval_schema_version)} but the record declares ${JSON.stringify(doc.schema_version)}`,
      at('/eval_schema_version'),
    );
  const problems = legacyPathProblems(row.legacy_path, {
    collection: String(row.benchmark),
    uuid: row.object_uuid,
  });
  if (problems.length > 0)
    findings.add(
      entry.indexFile,
      'eee.flat-legacy-path',
      `legacy_path ${row.legacy_path} ${problems.join('; ')} (the tree layout's rule: data/<collection>/<developer>/<model>/<uuid>.json)`,
      at('/legacy_path'),
    );
  const folder = legacyModelFolder(row.legacy_path);
  const model = isJsonObject(doc.model_info) ? doc.model_info.id : undefined;
  if (
    folder !== undefined &&
    typeof model === 'string' &&
    upstreamSpelling(folder) !== upstreamSpelling(model)
  )
    findings.add(
      entry.indexFile,
      'eee.flat-legacy-model',
      `legacy_path ${row.legacy_path} lies in the model folder ${folder}, but the object ${row.object_path} is a record of ${JSON.stringify(model)}: the record's identity and its directory disagree`,
      at('/legacy_path', 'warning'),
    );
}

/** The `<developer>/<model>` folders of a legacy path `data/<collection>/<developer>/<model>/<uuid>.json`. */
function legacyModelFolder(legacyPath: string): string | undefined {
  const parts = legacyPath.split('/');
  return parts.length === 5 && parts[0] === 'data' ? `${parts[2]}/${parts[3]}` : undefined;
}

/**
 * A model id or folder as upstream's datastore spells its folders: case aside, a `.` written `-` (records of
 * `google/gemini-2.0-flash` lie under `google/gemini-2-0-flash/`).
 */
const upstreamSpelling = (id: string): string => id.toLowerCase().replace(/\./g, '-');

/** What the flat checks say about each aggregate object of a datastore, for a reader that stores records. */
export interface FlatObjectVerdict {
  /** The collection of its index row (undefined for an object no row names). */
  collection?: string;
  /** Errors about it: of every row naming it, or that no valid row names it. A record with errors is not stored. */
  errors: Diagnostic[];
}

/**
 * The one reading of a flat datastore that `validate`, `ingest` and `migrate` share: every finding (`diagnostics`)
 * and, by the absolute path of each aggregate object, its collection and the errors that keep it out.
 */
export async function readFlatStore(
  root: string,
): Promise<{ diagnostics: Diagnostic[]; objects: Map<string, FlatObjectVerdict> }> {
  const diagnostics = await checkEeeFlat([root]);
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const objects = new Map<string, FlatObjectVerdict>();
  for (const entry of await readFlatIndexes(root)) {
    const row = entry.row as { object_path?: unknown } | undefined;
    if (typeof row?.object_path !== 'string' || !isSafeRelativePath(row.object_path)) continue;
    const abs = join(root, ...row.object_path.split('/'));
    const verdict = objects.get(abs) ?? { collection: entry.collection, errors: [] };
    verdict.errors.push(
      ...errors.filter((d) => resolve(d.file) === entry.indexFile && d.line === entry.line),
    );
    objects.set(abs, verdict);
  }
  for (const rel of await listObjects(root)) {
    const abs = join(root, ...rel.split('/'));
    if (!rel.endsWith('.json') || objects.has(abs)) continue;
    objects.set(abs, { errors: errors.filter((d) => resolve(d.file) === abs) });
  }
  return { diagnostics, objects };
}
