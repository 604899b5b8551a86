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

/**
 * The one rule for where an aggregate lies in the tree layout, for the tree check (a file's own path) and the flat
 * index check (a row's `legacy_path`) alike: `data/<collection>/<developer>/<model>/<uuid4>.json`, every part
 * portable, the collection and uuid those of the record's index row when there is one. The developer and model
 * folders are not compared with `model_info.id`: upstream's folders do not always spell it (records of
 * `google/gemini-2.0-flash` lie under `google/gemini-2-0-flash/`).
 */
export function legacyPathProblems(legacyPath: string, row: { collection: string; uuid: string }): string[] {
  const [head, ...parts] = legacyPath.split('/');
  if (head !== 'data') return ['does not start with data/'];
  const problems = [
    ...parts.flatMap((part) => {
      const reason = nonPortableReason(part);
      return reason ? [`has a part ${JSON.stringify(part)} that ${reason}`] : [];
    }),
    ...layoutProblems(parts, 'aggregate'),
  ];
  if (parts[0] !== row.collection)
    problems.push(
      `lies in collection ${JSON.stringify(parts[0])}, not the row's ${JSON.stringify(row.collection)}`,
    );
  if (parts[parts.length - 1] !== `${row.uuid}.json`)
    problems.push(`is not named after the row's object_uuid (${row.uuid}.json)`);
  return problems;
}

/** The uuid of an aggregate or samples file name, when it has one. */
export function uuidOfName(name: string): string | undefined {
  return new RegExp(`^(${UUID4})(?:_samples\\.jsonl|\\.json)$`, 'i').exec(name)?.[1];
}
