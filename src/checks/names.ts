/** Portable path parts and the EEE datastore layout `data/<collection>/<developer>/<model>/<uuid4>[.json|_samples.jsonl]`. */

const RESERVED = new Set([
  'CON',
  'PRN',
  'AUX',
  'NUL',
  ...Array.from({ length: 9 }, (_, i) => `COM${i + 1}`),
  ...Array.from({ length: 9 }, (_, i) => `LPT${i + 1}`),
]);

/** Why a path part is not portable, or undefined when it is. */
export function nonPortableReason(part: string): string | undefined {
  if (part === '') return 'is empty';
  if (part === '.' || part === '..') return `is "${part}"`;
  if (part.includes('\\')) return 'contains a backslash';
  const bad = /[<>:"|?*]/.exec(part);
  if (bad) return `contains "${bad[0]}"`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(part)) return 'contains a control character';
  if (/[. ]$/.test(part)) return `ends with ${part.endsWith('.') ? 'a dot' : 'a space'}`;
  const stem = part.split('.')[0].toUpperCase();
  if (RESERVED.has(stem)) return `is the Windows reserved name ${stem}`;
  return undefined;
}

export const UUID4 = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';
const AGGREGATE_NAME = new RegExp(`^${UUID4}\\.json$`);
const SAMPLES_NAME = new RegExp(`^${UUID4}_samples\\.jsonl$`);

export type DatastoreFileKind = 'aggregate' | 'samples';

/** Where a file sits in an EEE datastore tree: the root (the folder holding data/) and its parts below data/. */
export interface DatastoreLocation {
  /** Absolute path of the folder that contains `data/`. */
  root: string;
  /** Path parts below `data/`, file name last. */
  parts: string[];
}

/**
 * The datastore location of an absolute path: the nearest `data` folder above it with at least one folder
 * between. Undefined when the path is in no data/ tree.
 */
export function datastoreLocation(absolutePath: string): DatastoreLocation | undefined {
  const parts = absolutePath.split('/');
  for (let i = parts.length - 3; i >= 0; i--) {
    if (parts[i] === 'data') return { root: parts.slice(0, i).join('/') || '/', parts: parts.slice(i + 1) };
  }
  return undefined;
}

/** Problems of a file's layout, one sentence each ([] when it follows the layout). */
export function layoutProblems(parts: string[], kind: DatastoreFileKind): string[] {
  const problems: string[] = [];
  if (parts.length !== 4)
    problems.push(
      `lies ${parts.length - 1} folder(s) below data/ instead of 3 (data/<collection>/<developer>/<model>/)`,
    );
  const name = parts[parts.length - 1];
  const pattern = kind === 'aggregate' ? AGGREGATE_NAME : SAMPLES_NAME;
  if (!pattern.test(name))
    problems.push(
      `name "${name}" is not ${kind === 'aggregate' ? '<uuid4>.json' : '<uuid4>_samples.jsonl'} with a lowercase UUID4`,
    );
  return problems;
}

/** The uuid of an aggregate or samples file name, when it has one. */
export function uuidOfName(name: string): string | undefined {
  return new RegExp(`^(${UUID4})(?:_samples\\.jsonl|\\.json)$`, 'i').exec(name)?.[1];
}
