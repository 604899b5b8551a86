// The real EEE records of ../shared/reference and both validators (upstream schema, ours) for each version.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { eeeAggregateType, eeeInstanceType } from '../../src/formats/eee/index.js';
import type { DocumentType } from '../../src/formats/types.js';
import { createAjv } from '../../src/validate/ajv.js';
import { reference } from '../helpers/shared.js';

export const VERSIONS = ['0.2.0', '0.2.1', '0.2.2', '0.3.0'] as const;

export interface Pair {
  version: string;
  upstreamSchema: unknown;
  upstream: ValidateFunction;
  ours: ValidateFunction;
}

/** For each version: the upstream validator and ours, both compiled by the project's draft-07 Ajv. */
export function validatorPairs(type: DocumentType): Map<string, Pair> {
  const pairs = new Map<string, Pair>();
  for (const version of type.versions) {
    // 0.1.0's upstream schema is not in ../shared/reference (it is in the upstream repository's history).
    if (version.upstreamSchema === undefined) continue;
    const path = reference(version.upstreamSchema);
    if (!path) throw new Error(`upstream schema missing: ${version.upstreamSchema}`);
    const upstreamSchema = JSON.parse(readFileSync(path, 'utf8'));
    // Separate Ajv instances: both schemas lack an $id, and a validator must not see the other's definitions.
    const upstream = createAjv('draft-07').compile(upstreamSchema);
    const ours = createAjv(version.dialect).compile(JSON.parse(JSON.stringify(version.schema)));
    pairs.set(version.version, { version: version.version, upstreamSchema, upstream, ours });
  }
  return pairs;
}

export const aggregatePairs = () => validatorPairs(eeeAggregateType);
export const instancePairs = () => validatorPairs(eeeInstanceType);

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...walk(path));
    else out.push(path);
  }
  return out;
}

export interface RealRecord {
  /** Path relative to the reference root, plus `:line` for a JSONL line. */
  name: string;
  doc: unknown;
}

/** Every aggregate .json under eee/records (the datastore tree and the fixtures). */
export function realAggregates(): RealRecord[] {
  const root = reference('eee/records')!;
  return walk(root)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ name: relative(reference()!, f), doc: JSON.parse(readFileSync(f, 'utf8')) }));
}

/** Every line of every .jsonl under eee/records, grouped per file. */
export function realJsonl(): { file: string; lines: RealRecord[] }[] {
  const root = reference('eee/records')!;
  return walk(root)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => ({
      file: relative(reference()!, f),
      lines: readFileSync(f, 'utf8')
        .split('\n')
        .map((text, i) => ({ text, i }))
        .filter(({ text }) => text.trim() !== '')
        .map(({ text, i }) => ({ name: `${relative(reference()!, f)}:${i + 1}`, doc: JSON.parse(text) })),
    }));
}

export function versionOf(doc: unknown): string | undefined {
  const value = (doc as { schema_version?: unknown })?.schema_version;
  if (typeof value !== 'string') return undefined;
  return value.replace(/^instance_level_eval_/, '');
}

/** Compares the two verdicts; returns a printable report on disagreement, undefined on agreement. */
export function disagreement(pair: Pair, doc: unknown, what: string): string | undefined {
  const a = pair.upstream(doc);
  const b = pair.ours(doc);
  if (a === b) return undefined;
  const errors = (v: ValidateFunction) =>
    JSON.stringify((v.errors ?? []).map((e) => `${e.instancePath} ${e.schemaPath} ${e.message}`));
  return [
    `verdicts differ for ${what} under ${pair.version}: upstream ${a ? 'valid' : 'invalid'}, ours ${b ? 'valid' : 'invalid'}`,
    `  upstream errors: ${errors(pair.upstream)}`,
    `  our errors:      ${errors(pair.ours)}`,
    `  document: ${JSON.stringify(doc).slice(0, 2000)}`,
  ].join('\n');
}
