/**
 * The canonical `sample_hash` of an EEE instance row, and the older recipes some converters used.
 *
 * Canonical (EEE spec): hex sha256 of the UTF-8 bytes of `{"raw":…,"reference":…}` written as Python's
 * `json.dumps(..., sort_keys=True, separators=(",", ":"))` (non-ASCII escaped), `reference` being the list of
 * strings, `[]` when there is none.
 */
import * as crypto from 'node:crypto';
import { createHash } from 'node:crypto';
import { canonicalJson, pythonJsonString } from '../../io/canonical.js';

export type SampleHashAlgorithm = 'sha256' | 'md5';

export interface SampleHashRecipe {
  id: string;
  description: string;
  /** The text the digest is taken over. */
  text(raw: unknown, reference: string[]): string;
}

// One-shot hashing (Node ≥ 20.12) is about twice as fast as a Hash object for short texts; converters hash every row.
const oneShot = (
  crypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: 'hex') => string }
).hash;
const digest = (text: string, algorithm: SampleHashAlgorithm): string =>
  oneShot ? oneShot(algorithm, text, 'hex') : createHash(algorithm).update(text, 'utf8').digest('hex');

/** The reference list a recipe hashes: a list of strings, a scalar wrapped, [] when absent. */
export function referenceList(reference: unknown): string[] {
  if (reference === undefined || reference === null) return [];
  if (Array.isArray(reference)) return reference.map((r) => (typeof r === 'string' ? r : JSON.stringify(r)));
  return [typeof reference === 'string' ? reference : JSON.stringify(reference)];
}

/** Every known recipe, the canonical one first. */
export const SAMPLE_HASH_RECIPES: readonly SampleHashRecipe[] = [
  {
    id: 'canonical',
    description: 'sha256 of {"raw","reference"} as sorted compact JSON with non-ASCII escaped (EEE 0.3.0)',
    text: (raw, reference) =>
      typeof raw === 'string' ? fastCanonical(raw, reference) : canonicalJson({ raw, reference }),
  },
  {
    id: 'concat-raw-reference',
    description: 'sha256 of the raw input followed directly by the reference strings (EEE 0.2.1 converters)',
    text: (raw, reference) => `${typeof raw === 'string' ? raw : JSON.stringify(raw)}${reference.join('')}`,
  },
  {
    id: 'json-unescaped',
    description: 'sha256 of {"raw","reference"} as sorted compact JSON with non-ASCII kept as UTF-8',
    text: (raw, reference) => JSON.stringify(sortKeys({ raw, reference })),
  },
];

/**
 * The canonical text when every value is a string (keys "raw" < "reference"): the same bytes as canonicalJson.
 * `rawJson`: JSON.stringify(raw), when the caller has it already.
 */
export function fastCanonical(raw: string, reference: string[], rawJson?: string): string {
  let out = `{"raw":${pythonJsonString(raw, rawJson)},"reference":[`;
  for (let i = 0; i < reference.length; i++) out += (i > 0 ? ',' : '') + pythonJsonString(reference[i]);
  return `${out}]}`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  return value;
}

/** The algorithm a stored hash was made with, from its length (32 hex digits: md5, else sha256). */
export function algorithmOfHash(hash: string): SampleHashAlgorithm {
  return hash.length === 32 ? 'md5' : 'sha256';
}

/**
 * The canonical sample_hash of a row's `input` ({raw, reference}). `rawJson`: JSON.stringify(input.raw), when the
 * caller has it already (a converter writing the row).
 */
export function sampleHash(
  input: { raw?: unknown; reference?: unknown },
  algorithm: SampleHashAlgorithm = 'sha256',
  rawJson?: string,
): string {
  const reference = referenceList(input.reference);
  if (typeof input.raw === 'string') return canonicalDigest(input.raw, reference, rawJson, algorithm);
  return digest(SAMPLE_HASH_RECIPES[0].text(input.raw ?? null, reference), algorithm);
}

/** Where canonicalDigest writes its text; grown when a text does not fit. */
let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * The digest of fastCanonical's text. That text is ASCII (pythonJsonString escapes every unit above U+007E), so its
 * UTF-8 bytes are its Latin-1 bytes: its parts are copied into one reused buffer and the buffer hashed, instead of
 * joining them into a string that the hash then encodes as UTF-8 (several times slower for a long prompt).
 */
function canonicalDigest(
  raw: string,
  reference: string[],
  rawJson: string | undefined,
  algorithm: SampleHashAlgorithm,
): string {
  const parts = ['{"raw":', pythonJsonString(raw, rawJson), ',"reference":['];
  for (let i = 0; i < reference.length; i++) parts.push((i > 0 ? ',' : '') + pythonJsonString(reference[i]));
  parts.push(']}');
  let length = 0;
  for (const p of parts) length += p.length;
  if (length > scratch.length) scratch = Buffer.allocUnsafe(Math.max(length, 2 * scratch.length));
  let n = 0;
  for (const p of parts) n += scratch.write(p, n, 'latin1');
  const bytes = scratch.subarray(0, n);
  return oneShot ? oneShot(algorithm, bytes, 'hex') : createHash(algorithm).update(bytes).digest('hex');
}

/** The first recipe whose hash equals `hash` (algorithm taken from its length), or undefined. */
export function matchingSampleHashRecipe(
  input: { raw?: unknown; reference?: unknown },
  hash: string,
): SampleHashRecipe | undefined {
  const reference = referenceList(input.reference);
  const algorithm = algorithmOfHash(hash);
  const wanted = hash.toLowerCase();
  return SAMPLE_HASH_RECIPES.find((r) => digest(r.text(input.raw ?? null, reference), algorithm) === wanted);
}
