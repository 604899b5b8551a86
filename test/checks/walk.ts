import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every file below dir (absolute paths, sorted); symbolic links are listed, not entered. */
export function walkFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...walkFiles(p));
    else out.push(p);
  }
  return out.sort();
}

/** Every regular file below dir, by its path relative to dir, with its sha256 (an empty map when dir is absent). */
export function fileDigests(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(dir)) return out;
  for (const path of walkFiles(dir))
    if (lstatSync(path).isFile())
      out.set(relative(dir, path), createHash('sha256').update(readFileSync(path)).digest('hex'));
  return out;
}
