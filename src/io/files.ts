/**
 * Expanding what the user typed into files: plain paths, directories (walked, skipping .git, node_modules and
 * virtualenvs), globs with `*`, `?`, `[...]`, `{a,b}` and `**` (globstar: zero or more directories), and `-`.
 */
import { statSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { IoError } from '../errors.js';
import { describeFileKind } from './file-kind.js';

/** Folders never walked into. */
export const SKIPPED_DIRS = new Set(['.git', 'node_modules', '.venv', 'venv', '__pycache__', '.hg', '.svn']);

/** Extensions read when a directory is walked. */
/** True when a regular file (or a link to one) is at the path, at once (the sources' probes of a run's files). */
export function isFileSync(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** True when something exists at the path (a file, a folder, a link). */
export const pathExists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

export const DATA_EXTENSIONS = ['.json', '.jsonl', '.ndjson'];

export function isJsonlPath(path: string): boolean {
  return /\.(jsonl|ndjson)$/i.test(path);
}

export function hasGlobMagic(pattern: string): boolean {
  return /[*?[{]/.test(pattern);
}

/** Converts a glob to a RegExp over '/'-separated relative paths. `**` matches zero or more whole segments. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const atStart = i === 0 || glob[i - 1] === '/';
        const atEnd = i + 2 === glob.length || glob[i + 2] === '/';
        if (atStart && atEnd) {
          if (glob[i + 2] === '/') {
            re += '(?:[^/]+/)*';
            i += 2;
          } else {
            re += '.*';
            i += 1;
          }
          continue;
        }
        i += 1;
      }
      re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 1);
      if (close === -1) re += '\\[';
      else {
        let body = glob.slice(i + 1, close);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        re += `[${body.replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else if (c === '{') {
      const close = glob.indexOf('}', i + 1);
      if (close === -1) re += '\\{';
      else {
        const alts = glob.slice(i + 1, close).split(',');
        re += `(?:${alts.map((a) => globToRegExp(a).source.slice(1, -1)).join('|')})`;
        i = close;
      }
    } else re += c.replace(/[.+^$()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

async function walk(dir: string, out: string[]): Promise<void> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    throw new IoError('io.read', `cannot read directory ${dir}: ${(error as Error).message}`);
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIPPED_DIRS.has(e.name)) await walk(path, out);
    } else if (e.isFile() && DATA_EXTENSIONS.some((x) => e.name.toLowerCase().endsWith(x))) out.push(path);
  }
}

async function walkAll(dir: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIPPED_DIRS.has(e.name)) await walkAll(path, out);
    } else if (e.isFile()) out.push(path);
  }
}

/**
 * Expands arguments into file paths, in the order given (a directory's files sorted), without duplicates.
 * Paths are returned as the user would write them (relative to `cwd` when given relatively). "-" is kept as is.
 */
export async function expandPaths(args: string[], cwd: string = process.cwd()): Promise<string[]> {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (p: string): void => {
    const key = p === '-' ? '-' : resolve(cwd, p);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(p);
    }
  };
  for (const arg of args) {
    if (arg === '-') {
      add('-');
      continue;
    }
    const abs = resolve(cwd, arg);
    const info = await stat(abs).catch(() => undefined);
    if (info?.isDirectory()) {
      const found: string[] = [];
      await walk(abs, found);
      for (const f of found) add(displayPath(f, arg, abs));
      continue;
    }
    if (info?.isFile()) {
      add(arg);
      continue;
    }
    // A FIFO, device or socket: say what it is (reading it could hang), not "no such file".
    if (info)
      throw new IoError(
        'io.not-regular',
        `cannot read ${arg}: it is ${describeFileKind(info)}, not a regular file`,
      );
    if (!hasGlobMagic(arg)) throw new IoError('io.not-found', `no such file or directory: ${arg}`);
    const parts = arg.split('/');
    const magicAt = parts.findIndex(hasGlobMagic);
    const baseRel = parts.slice(0, magicAt).join('/');
    const base = resolve(cwd, baseRel === '' && arg.startsWith('/') ? '/' : baseRel || '.');
    const re = globToRegExp(parts.slice(magicAt).join('/'));
    const found: string[] = [];
    await walkAll(base, found);
    const matched = found.filter((f) => re.test(relative(base, f).split(sep).join('/')));
    if (matched.length === 0) throw new IoError('io.not-found', `no files match ${arg}`);
    for (const f of matched) add(baseRel ? join(baseRel, relative(base, f)) : relative(cwd, f));
  }
  return out;
}

function displayPath(found: string, arg: string, absArg: string): string {
  return join(arg, relative(absArg, found));
}
