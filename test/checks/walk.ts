import { readdirSync } from 'node:fs';
import { join } from 'node:path';

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
