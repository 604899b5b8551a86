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
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import type { Diagnostic } from '../diagnostics.js';
import {
  FLAT_INDEXES,
  FLAT_OBJECTS,
  flatInstancePath,
  flatObjectPath,
  instanceReference,
  isSafeRelativePath,
  treeFolderParts,
} from '../formats/eee/flat.js';
import { UUID4 } from './names.js';
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

/** One row of a collection index, as read. */
export interface FlatIndexEntry {
  /** Absolute path of the index file. */
  indexFile: string;
  collection: string;
  line: number;
  text: string;
  row: unknown;
}

/** Every row of every collection index of a flat datastore root, in file then line order. */
export async function readFlatIndexes(root: string): Promise<FlatIndexEntry[]> {
  const dir = join(root, FLAT_INDEXES);
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.jsonl')).sort();
  const entries: FlatIndexEntry[] = [];
  for (const name of names) {
    const indexFile = join(dir, name);
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
      entries.push({ indexFile, collection: name.slice(0, -'.jsonl'.length), line, text: lineText, row });
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
export async function checkEeeFlat(roots: string[]): Promise<Diagnostic[]> {
  const findings = new Findings();
  for (const root of roots) await checkRoot(root, findings);
  return findings.diagnostics();
}

async function checkRoot(root: string, findings: Findings): Promise<void> {
  const named = new Set<string>();
  for (const entry of await readFlatIndexes(root)) {
    const at = (pointer: string, severity: 'error' | 'warning' = 'error') => ({
      text: entry.text,
      firstLine: entry.line,
      pointer,
      severity,
    });
    const row = entry.row;
    if (!isJsonObject(row)) {
      findings.add(entry.indexFile, 'eee.flat-index', 'the index line is not a JSON object', at(''));
      continue;
    }
    let shapeOk = true;
    for (const key of REQUIRED_STRINGS)
      if (typeof row[key] !== 'string' || row[key] === '') {
        findings.add(
          entry.indexFile,
          'eee.flat-index',
          `"${key}" is missing or not a non-empty string`,
          at(`/${key}`),
        );
        shapeOk = false;
      }
    if (!isSize(row.size_bytes)) {
      findings.add(
        entry.indexFile,
        'eee.flat-index',
        '"size_bytes" is missing or not a non-negative integer',
        at('/size_bytes'),
      );
      shapeOk = false;
    }
    if (typeof row.sha256 === 'string' && row.sha256 !== '' && !isSha256(row.sha256)) {
      findings.add(
        entry.indexFile,
        'eee.flat-index',
        '"sha256" is not 64 lowercase hex digits',
        at('/sha256'),
      );
      shapeOk = false;
    }
    if (typeof row.object_uuid === 'string' && row.object_uuid !== '' && !UUID_RE.test(row.object_uuid)) {
      findings.add(
        entry.indexFile,
        'eee.flat-index',
        `"object_uuid" ${JSON.stringify(row.object_uuid)} is not a lowercase UUID4`,
        at('/object_uuid'),
      );
      shapeOk = false;
    }
    for (const key of ['object_path', 'legacy_path'] as const)
      if (typeof row[key] === 'string' && row[key] !== '' && !isSafeRelativePath(row[key] as string)) {
        findings.add(
          entry.indexFile,
          'eee.flat-index',
          `"${key}" ${JSON.stringify(row[key])} leaves the datastore`,
          at(`/${key}`),
        );
        shapeOk = false;
      }
    const instance = instanceReference(row);
    if (instance) {
      if (typeof instance.path !== 'string' || !isSafeRelativePath(instance.path)) {
        findings.add(
          entry.indexFile,
          'eee.flat-index',
          'the instance object path is missing or leaves the datastore',
          at(instance.pointer),
        );
        shapeOk = false;
      }
      if (!isSha256(instance.sha256) || !isSize(instance.size)) {
        findings.add(
          entry.indexFile,
          'eee.flat-index',
          'the instance object needs a sha256 (64 hex digits) and a size in bytes',
          at(instance.pointer),
        );
        shapeOk = false;
      }
    }
    if (!shapeOk) continue;
    const r = row as JsonObject & {
      object_path: string;
      object_uuid: string;
      legacy_path: string;
      sha256: string;
      size_bytes: number;
    };
    named.add(r.object_path);
    if (instance) named.add(instance.path as string);

    // The uuid is the object's file name, and the object lies where its uuid puts it.
    if (
      basename(r.object_path) !== `${r.object_uuid}.json` ||
      r.object_path !== flatObjectPath(r.object_uuid)
    )
      findings.add(
        entry.indexFile,
        'eee.flat-uuid',
        `object_path ${r.object_path} is not ${flatObjectPath(r.object_uuid)} (the path of object_uuid ${r.object_uuid})`,
        at('/object_path'),
      );
    if (instance && instance.path !== flatInstancePath(r.object_uuid))
      findings.add(
        entry.indexFile,
        'eee.flat-uuid',
        `the instance object ${String(instance.path)} is not ${flatInstancePath(r.object_uuid)}`,
        at(instance.pointer),
      );

    const objectAbs = join(root, ...r.object_path.split('/'));
    const object = await fileSha256(objectAbs);
    if (!object) {
      findings.add(
        entry.indexFile,
        'eee.flat-missing',
        `the object ${r.object_path} does not exist`,
        at('/object_path'),
      );
    } else {
      if (object.size !== r.size_bytes)
        findings.add(
          entry.indexFile,
          'eee.flat-size',
          `the object ${r.object_path} has ${object.size} bytes, the index says ${r.size_bytes}`,
          at('/size_bytes'),
        );
      if (object.sha256 !== r.sha256)
        findings.add(
          entry.indexFile,
          'eee.flat-hash',
          `the object ${r.object_path} has sha256 ${object.sha256}, the index says ${r.sha256}`,
          at('/sha256'),
        );
      await checkAgainstRecord(objectAbs, r, entry, findings, at);
    }
    if (instance) {
      const file = instance.path as string;
      const found = await fileSha256(join(root, ...file.split('/')));
      if (!found)
        findings.add(
          entry.indexFile,
          'eee.flat-missing',
          `the instance object ${file} does not exist`,
          at(instance.pointer),
        );
      else {
        if (found.size !== instance.size)
          findings.add(
            entry.indexFile,
            'eee.flat-size',
            `the instance object ${file} has ${found.size} bytes, the index says ${String(instance.size)}`,
            at(instance.pointer),
          );
        if (found.sha256 !== instance.sha256)
          findings.add(
            entry.indexFile,
            'eee.flat-hash',
            `the instance object ${file} has sha256 ${found.sha256}, the index says ${String(instance.sha256)}`,
            at(instance.pointer),
          );
      }
    }
  }
  for (const object of await listObjects(root))
    if (!named.has(object))
      findings.add(
        join(root, ...object.split('/')),
        'eee.flat-orphan',
        'no index row names this object',
        WHOLE_FILE,
      );
}

async function checkAgainstRecord(
  objectAbs: string,
  row: JsonObject & { legacy_path: string; object_uuid: string },
  entry: FlatIndexEntry,
  findings: Findings,
  at: (pointer: string) => { text: string; firstLine: number; pointer: string },
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
  const parts = row.legacy_path.split('/');
  const folders = treeFolderParts(doc.model_info);
  const expected = folders
    ? `data/${String(row.benchmark)}/${folders.developer}/${folders.model}/${row.object_uuid}.json`
    : undefined;
  const agrees =
    parts[0] === 'data' &&
    parts[1] === row.benchmark &&
    parts[parts.length - 1] === `${row.object_uuid}.json` &&
    (expected === undefined || row.legacy_path === expected);
  if (!agrees)
    findings.add(
      entry.indexFile,
      'eee.flat-legacy-path',
      `legacy_path ${row.legacy_path} does not agree with the record` +
        (expected ? ` (its collection, developer, model and uuid give ${expected})` : ''),
      at('/legacy_path'),
    );
}
