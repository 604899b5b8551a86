/**
 * The benchmark output v1 repository path policy: where output files may live (allowed), where they used to live
 * (deprecated, with the canonical place to move them), and everything else (unrecognised). Globs have real
 * globstar semantics: `**` is zero or more whole folders, so `outputs/**\/*.json` matches `outputs/a.json`.
 */
import { existsSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { dirname, join, posix, relative, sep } from 'node:path';

export type PathStatus = 'allowed' | 'deprecated' | 'unrecognised';

export const ALLOWED_GLOBS = ['outputs/**/*.json', 'benchmarks/**/results/**/*.json'] as const;
export const DEPRECATED_GLOBS = ['results/**/*.json', '**/output.json'] as const;
/** Ambiguous generic file names, deprecated wherever they are. */
export const GENERIC_NAMES = ['output.json', 'results.json', 'metrics.json', 'eval.json'] as const;

/** A glob as a RegExp over '/'-separated relative paths; `*` and `?` stay within one part, `**` spans parts. */
export function policyGlobToRegExp(glob: string): RegExp {
  const parts = glob.split('/');
  let source = '^';
  parts.forEach((part, i) => {
    const last = i === parts.length - 1;
    if (part === '**') {
      source += last ? '.*' : '(?:[^/]+/)*';
      return;
    }
    source += part.replace(/[.+^${}()|[\]\\*?]/g, (c) =>
      c === '*' ? '[^/]*' : c === '?' ? '[^/]' : `\\${c}`,
    );
    if (!last) source += '/';
  });
  return new RegExp(`${source}$`);
}

const ALLOWED = ALLOWED_GLOBS.map((g) => ({ glob: g, re: policyGlobToRegExp(g) }));
const DEPRECATED = DEPRECATED_GLOBS.map((g) => ({ glob: g, re: policyGlobToRegExp(g) }));

/** A repository-relative path with '/' separators; only a leading "./" is removed (".github" keeps its dot). */
export function normaliseRelativePath(path: string): string {
  let p = path.split(sep).join('/');
  while (p.startsWith('./')) p = p.slice(2);
  return p;
}

export interface PathVerdict {
  path: string;
  status: PathStatus;
  /** The glob or rule that decided. */
  rule: string;
  /** For deprecated files: where the file should go. */
  canonical?: string;
}

/** A path part safe in any file system: runs of other characters become "-". */
export function slug(text: string): string {
  const s = text.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+|[.-]+$/g, '');
  return s === '' ? 'unknown' : s;
}

/** Identity of a run read from a document, when it says: new shape metadata.*, legacy config.* / metadata.*. */
export function runIdentity(doc: unknown): { benchmark?: string; runId?: string } {
  if (typeof doc !== 'object' || doc === null) return {};
  const d = doc as Record<string, any>;
  const pick = (...vals: unknown[]): string | undefined => {
    for (const v of vals) if (typeof v === 'string' && v !== '') return v;
    return undefined;
  };
  const meta = (d.metadata ?? {}) as Record<string, any>;
  const config = (d.config ?? {}) as Record<string, any>;
  return {
    benchmark: pick(meta.benchmark?.name, meta.benchmark, config.benchmark?.name, config.benchmark),
    runId: pick(meta.run?.id, meta.run_id, config.run?.id, config.run_id),
  };
}

/** Where a benchmark output should live: outputs/<benchmark>/<run_id>.json, from the document when it says. */
export function canonicalLocation(relPath: string, doc?: unknown): string {
  const { benchmark, runId } = runIdentity(doc);
  const p = normaliseRelativePath(relPath);
  const name = posix.basename(p);
  const parent = posix.basename(posix.dirname(p));
  const stem = name.replace(/\.json$/, '');
  const bench = benchmark ?? (parent !== '' && parent !== '.' && parent !== 'results' ? parent : undefined);
  const run = runId ?? ((GENERIC_NAMES as readonly string[]).includes(name) ? undefined : stem);
  if (
    !benchmark &&
    !runId &&
    p.startsWith('results/') &&
    !(GENERIC_NAMES as readonly string[]).includes(name)
  )
    return `outputs/${p.slice('results/'.length)}`;
  return `outputs/${slug(bench ?? 'unknown')}/${slug(run ?? stem)}.json`;
}

/** The policy's verdict on one repository-relative path (and, for a better destination, its parsed content). */
export function classifyPath(relPath: string, doc?: unknown): PathVerdict {
  const path = normaliseRelativePath(relPath);
  const name = posix.basename(path);
  if ((GENERIC_NAMES as readonly string[]).includes(name)) {
    const rule = name === 'output.json' ? '**/output.json' : `generic name ${name}`;
    return { path, status: 'deprecated', rule, canonical: canonicalLocation(path, doc) };
  }
  for (const d of DEPRECATED)
    if (d.re.test(path))
      return { path, status: 'deprecated', rule: d.glob, canonical: canonicalLocation(path, doc) };
  for (const a of ALLOWED) if (a.re.test(path)) return { path, status: 'allowed', rule: a.glob };
  return { path, status: 'unrecognised', rule: 'no policy glob matches' };
}

const SKIPPED_FOLDERS = new Set([
  '.git',
  'node_modules',
  '.venv',
  'venv',
  '__pycache__',
  '.tox',
  '.mypy_cache',
]);
/** The schema folder of the policy, never scanned. */
export const SCHEMA_FOLDER = 'outputs/schemas';

/**
 * Every `*.json` under root (repository-relative, sorted), skipping .git, node_modules, virtualenvs (any folder
 * holding pyvenv.cfg) and the schema folder. Symbolic links are listed only if they are files; linked folders are
 * not entered.
 */
export async function discoverJsonFiles(
  root: string,
  /** Told of every folder that could not be read (rel '' is the root), instead of it being skipped in silence. */
  onUnreadable?: (rel: string, error: NodeJS.ErrnoException) => void,
): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, rel: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      onUnreadable?.(rel, error as NodeJS.ErrnoException);
      return;
    }
    for (const e of entries) {
      const childRel = rel === '' ? e.name : `${rel}/${e.name}`;
      const abs = join(dir, e.name);
      if (e.isDirectory()) {
        if (SKIPPED_FOLDERS.has(e.name) || childRel === SCHEMA_FOLDER) continue;
        if (existsSync(join(abs, 'pyvenv.cfg'))) continue;
        await walk(abs, childRel);
      } else if (e.name.endsWith('.json')) {
        if (e.isSymbolicLink()) {
          const st = await lstat(abs).catch(() => undefined);
          if (!st) continue;
        }
        found.push(childRel);
      }
    }
  };
  await walk(root, '');
  return found.sort();
}

/**
 * The repository roots a file may belong to for the policy, most likely first: the nearest folder above it holding
 * `.git`, then the parent of each `outputs`, `benchmarks` or `results` folder on its path (outermost first).
 */
export function policyRoots(absolutePath: string): string[] {
  const roots: string[] = [];
  let dir = dirname(absolutePath);
  for (;;) {
    if (existsSync(join(dir, '.git'))) {
      roots.push(dir);
      break;
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  const parts = absolutePath.split(sep);
  for (let i = 0; i < parts.length - 1; i++)
    if (['outputs', 'benchmarks', 'results'].includes(parts[i]))
      roots.push(parts.slice(0, i).join(sep) || sep);
  return [...new Set(roots)];
}

/**
 * The policy's verdict on an absolute path, trying each candidate root (see `policyRoots`) and keeping the first
 * that recognises the file. Undefined when the file lies in no repository-like tree at all.
 */
export function classifyInRepository(absolutePath: string, doc?: unknown): PathVerdict | undefined {
  const roots = policyRoots(absolutePath);
  let first: PathVerdict | undefined;
  for (const root of roots) {
    const verdict = classifyPath(relative(root, absolutePath), doc);
    if (verdict.status !== 'unrecognised') return verdict;
    first ??= verdict;
  }
  return first;
}
