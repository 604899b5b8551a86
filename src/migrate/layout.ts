/**
 * `evalkit migrate --layout flat|tree`: converts an EEE datastore between the tree layout
 * (`data/<collection>/<developer>/<model>/<uuid>.json` + `<uuid>_samples.jsonl`) and the flat, content-addressed
 * layout (`flat/objects/…` + `flat/indexes/by_collection/<collection>.jsonl`, src/formats/eee/flat.ts). Objects are
 * copied byte for byte, index rows are written with sorted keys in legacy_path order, so the conversion is
 * deterministic and converting there and back gives the same bytes. A flat datastore with a check failing (wrong
 * hash or size, missing object, orphan, wrong legacy path) is refused, and a tree file that has no place in the
 * flat layout is reported and the conversion fails, so nothing is lost silently. Files are written atomically.
 */
import { copyFile, lstat, mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { checkEeeFlat, fileSha256, readFlatIndexes } from '../checks/eee-flat.js';
import { UUID4 } from '../checks/names.js';
import type { Diagnostic } from '../diagnostics.js';
import {
  flatIndexPath,
  flatInstancePath,
  flatObjectPath,
  instanceReference,
  serializeIndexRow,
  type FlatIndexRow,
} from '../formats/eee/flat.js';
import { PAUSE_BEFORE_RENAME, writeFileAtomic } from '../io/atomic.js';
import { pauseForTest } from '../io/test-pause.js';
import { sweepStaleTemporaries, tempPathFor } from '../io/output-target.js';

export type DatastoreLayout = 'flat' | 'tree';

export interface LayoutOptions {
  /** Where to write (default: the datastore itself, beside the layout it has). */
  outDir?: string;
  dryRun?: boolean;
}

export interface LayoutResult {
  to: DatastoreLayout;
  root: string;
  out: string;
  /** Records converted (one aggregate, with its instance rows when it has them). */
  records: number;
  /** Files written (relative to `out`), in order. */
  written: string[];
  /** Why the conversion failed, one sentence each ([] when it succeeded). */
  problems: string[];
  /** For a flat datastore that fails its checks: the findings. */
  diagnostics: Diagnostic[];
}

const AGGREGATE = new RegExp(`^(${UUID4})\\.json$`);

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      const child = join(d, e.name);
      if (e.isDirectory()) await walk(child);
      else out.push(child);
    }
  };
  await walk(dir);
  return out.sort();
}

/** Copies a file atomically (a temporary name beside the target, then rename). */
async function copyAtomic(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  const tmp = tempPathFor(to);
  try {
    await copyFile(from, tmp);
    await pauseForTest(PAUSE_BEFORE_RENAME, `before-rename ${tmp}`);
    await rename(tmp, to);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

const posix = (root: string, abs: string): string => relative(root, abs).split(sep).join('/');

/** Converts the datastore at `root` to the given layout. */
export async function convertLayout(
  root: string,
  to: DatastoreLayout,
  options: LayoutOptions = {},
): Promise<LayoutResult> {
  const out = options.outDir ?? root;
  const result: LayoutResult = { to, root, out, records: 0, written: [], problems: [], diagnostics: [] };
  const copies: [string, string][] = [];
  const writes: [string, string][] = [];
  if (to === 'flat') {
    const files = await filesUnder(join(root, 'data'));
    if (files.length === 0) result.problems.push(`no tree layout (data/) under ${root}`);
    const byCollection = new Map<string, FlatIndexRow[]>();
    const paired = new Set<string>();
    for (const abs of files) {
      const rel = posix(root, abs);
      const parts = rel.split('/');
      const uuid = AGGREGATE.exec(parts[parts.length - 1])?.[1];
      if (!uuid) continue;
      if (parts.length !== 5) {
        result.problems.push(`${rel} is not at data/<collection>/<developer>/<model>/<uuid>.json`);
        continue;
      }
      const text = await readFile(abs, 'utf8');
      let doc: Record<string, unknown>;
      try {
        doc = JSON.parse(text) as Record<string, unknown>;
      } catch {
        result.problems.push(`${rel} is not JSON`);
        continue;
      }
      const object = (await fileSha256(abs))!;
      const row: FlatIndexRow = {
        benchmark: parts[1],
        eval_schema_version: typeof doc.schema_version === 'string' ? doc.schema_version : '',
        legacy_path: rel,
        object_path: flatObjectPath(uuid),
        object_uuid: uuid,
        record_type: 'aggregate',
        sha256: object.sha256,
        size_bytes: object.size,
      };
      paired.add(abs);
      copies.push([abs, row.object_path]);
      const samples = join(dirname(abs), `${uuid}_samples.jsonl`);
      const instance = await fileSha256(samples);
      if (instance) {
        paired.add(samples);
        row.instance_object_path = flatInstancePath(uuid);
        row.instance_sha256 = instance.sha256;
        row.instance_size_bytes = instance.size;
        copies.push([samples, row.instance_object_path]);
      }
      const rows = byCollection.get(parts[1]) ?? [];
      rows.push(row);
      byCollection.set(parts[1], rows);
      result.records++;
    }
    for (const abs of files)
      if (!paired.has(abs))
        result.problems.push(
          `${posix(root, abs)} has no place in the flat layout (only <uuid>.json records and their <uuid>_samples.jsonl)`,
        );
    for (const [collection, rows] of [...byCollection].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      rows.sort((a, b) => (a.legacy_path < b.legacy_path ? -1 : a.legacy_path > b.legacy_path ? 1 : 0));
      writes.push([flatIndexPath(collection), rows.map(serializeIndexRow).join('')]);
    }
  } else {
    result.diagnostics = (await checkEeeFlat([root])).filter((d) => d.severity === 'error');
    if (result.diagnostics.length > 0)
      result.problems.push(
        `the flat datastore fails ${result.diagnostics.length} check(s) (\`evalkit validate ${root}\` lists them)`,
      );
    const entries = await readFlatIndexes(root);
    if (entries.length === 0)
      result.problems.push(`no flat layout (flat/indexes/by_collection/) under ${root}`);
    const seen = new Set<string>();
    for (const entry of entries) {
      const row = entry.row as FlatIndexRow & Record<string, unknown>;
      if (typeof row?.legacy_path !== 'string' || typeof row.object_path !== 'string') continue;
      // A row repeated word for word (a warning of the checks) is one record.
      if (seen.has(row.object_path)) continue;
      seen.add(row.object_path);
      // The instance rows first: a kill between the two leaves rows without their aggregate (no record), never an
      // aggregate without its rows.
      const instance = instanceReference(row);
      if (instance && typeof instance.path === 'string')
        copies.push([
          join(root, ...instance.path.split('/')),
          row.legacy_path.replace(/\.json$/, '_samples.jsonl'),
        ]);
      copies.push([join(root, ...row.object_path.split('/')), row.legacy_path]);
      result.records++;
    }
  }
  // What lies at the targets already: the same bytes are kept (a merge, or a rerun after a kill), anything else is
  // refused before a file is written; a folder or file on the way that is a symbolic link is never written through.
  const fresh = await existingTargets(out, copies, writes, result.problems);
  result.problems = [...new Set(result.problems)];
  if (result.problems.length > 0 || options.dryRun) {
    if (options.dryRun)
      result.written = [...fresh.copies.map(([, to]) => to), ...fresh.writes.map(([to]) => to)];
    return result;
  }
  await removeLeftovers(join(out, to === 'flat' ? 'flat' : 'data'));
  for (const [from, rel] of fresh.copies) {
    await copyAtomic(from, join(out, ...rel.split('/')));
    result.written.push(rel);
  }
  for (const [rel, text] of fresh.writes) {
    await mkdir(dirname(join(out, ...rel.split('/'))), { recursive: true });
    await writeFileAtomic(join(out, ...rel.split('/')), text);
    result.written.push(rel);
  }
  return result;
}

/** Why a path below `out` cannot be written: a part of it (or it) is a symbolic link, or a part is not a folder. */
async function linkOnTheWay(out: string, rel: string): Promise<string | undefined> {
  const parts = rel.split('/');
  for (let i = 1; i <= parts.length; i++) {
    const at = join(out, ...parts.slice(0, i));
    const info = await lstat(at).catch(() => undefined);
    if (!info) return undefined;
    if (info.isSymbolicLink())
      return `${parts.slice(0, i).join('/')} is a symbolic link: migrate writes only inside ${out}, never through a link`;
    if (i < parts.length && !info.isDirectory()) return `${parts.slice(0, i).join('/')} is not a folder`;
  }
  return undefined;
}

/**
 * The copies and writes still to do, given what `out` holds: a target with the same bytes is done already; a
 * target with other bytes is a problem (nothing existing is changed); an index that exists is merged with the new
 * rows when every row it shares with them is the same row (same uuid, same bytes), else a problem naming the row.
 */
async function existingTargets(
  out: string,
  copies: [string, string][],
  writes: [string, string][],
  problems: string[],
): Promise<{ copies: [string, string][]; writes: [string, string][] }> {
  const todo = { copies: [] as [string, string][], writes: [] as [string, string][] };
  for (const [from, rel] of copies) {
    const link = await linkOnTheWay(out, rel);
    if (link) {
      problems.push(link);
      continue;
    }
    const there = await fileSha256(join(out, ...rel.split('/')));
    if (!there) todo.copies.push([from, rel]);
    else if (there.sha256 !== (await fileSha256(from))?.sha256)
      problems.push(`${rel} exists in ${out} with other bytes: migrate does not replace an existing file`);
  }
  const indexed = await existingUuids(out);
  for (const [rel, text] of writes) {
    const link = await linkOnTheWay(out, rel);
    if (link) {
      problems.push(link);
      continue;
    }
    const collection = rel
      .split('/')
      .pop()!
      .replace(/\.jsonl$/, '');
    const existing = await readFile(join(out, ...rel.split('/')), 'utf8').catch(() => undefined);
    const added: string[] = [];
    for (const line of text.split('\n').filter(Boolean)) {
      const uuid = (JSON.parse(line) as FlatIndexRow).object_uuid;
      const there = indexed.get(uuid);
      if (!there) added.push(line);
      else if (there.collection !== collection)
        problems.push(
          `record ${uuid} is indexed in ${out} under collection ${there.collection}, not ${collection}: a record belongs to one collection`,
        );
      else if (there.text !== line)
        problems.push(
          `the index row of record ${uuid} in ${rel} differs from the row this migration writes (${rowDifference(there.text, line)}): migrate does not change an existing row`,
        );
    }
    if (existing === undefined) todo.writes.push([rel, text]);
    else if (added.length > 0) {
      if (existing !== '' && !existing.endsWith('\n'))
        problems.push(`${rel} in ${out} does not end with a newline: rows cannot be added to it safely`);
      else todo.writes.push([rel, existing + added.map((l) => `${l}\n`).join('')]);
    }
  }
  return todo;
}

/** The rows of the flat indexes already in `out`, by object uuid. */
async function existingUuids(out: string): Promise<Map<string, { collection: string; text: string }>> {
  const rows = new Map<string, { collection: string; text: string }>();
  for (const entry of await readFlatIndexes(out)) {
    const uuid = (entry.row as { object_uuid?: unknown } | undefined)?.object_uuid;
    if (typeof uuid === 'string' && !rows.has(uuid))
      rows.set(uuid, { collection: entry.collection, text: entry.text });
  }
  return rows;
}

/** The fields in which two index rows differ, as `key: a → b`. */
function rowDifference(a: string, b: string): string {
  const x = JSON.parse(a) as Record<string, unknown>;
  const y = JSON.parse(b) as Record<string, unknown>;
  return [...new Set([...Object.keys(x), ...Object.keys(y)])]
    .filter((k) => JSON.stringify(x[k]) !== JSON.stringify(y[k]))
    .map((k) => `${k}: ${JSON.stringify(x[k] ?? null)} \u2192 ${JSON.stringify(y[k] ?? null)}`)
    .join('; ');
}

/** Removes the temporary files a killed migration left in every folder below `dir` (those of a process gone). */
async function removeLeftovers(dir: string): Promise<void> {
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []))
    if (e.isDirectory()) await sweepStaleTemporaries(join(e.parentPath, e.name));
  await sweepStaleTemporaries(dir);
}

/** The layout a datastore root has: flat when it has flat indexes, tree when it has data/, else undefined. */
export async function layoutOf(root: string): Promise<DatastoreLayout | undefined> {
  if ((await readdir(join(root, 'flat', 'indexes', 'by_collection')).catch(() => [])).length > 0)
    return 'flat';
  if ((await readdir(join(root, 'data')).catch(() => [])).length > 0) return 'tree';
  return undefined;
}
