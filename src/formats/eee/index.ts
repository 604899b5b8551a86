import type { Static } from 'typebox';
import type { DocumentType, FormatVersion } from '../types.js';
import {
  EeeAggregateSchema020,
  EeeAggregateSchema021,
  EeeAggregateSchema022,
  EeeAggregateSchema030,
} from './aggregate.js';
import { EeeAggregateSchema010 } from './aggregate-010.js';
import { explainAggregateError, explainInstanceError } from './explain.js';
import {
  EeeInstanceSchema020,
  EeeInstanceSchema021,
  EeeInstanceSchema022,
  EeeInstanceSchema030,
} from './instance.js';
import { metricIdRule } from './rules.js';

export * from './aggregate.js';
export * from './instance.js';
export { EeeAggregateSchema010 } from './aggregate-010.js';

export type EeeAggregate010 = Static<typeof EeeAggregateSchema010>;
export type EeeAggregate020 = Static<typeof EeeAggregateSchema020>;
export type EeeAggregate021 = Static<typeof EeeAggregateSchema021>;
export type EeeAggregate022 = Static<typeof EeeAggregateSchema022>;
export type EeeAggregate030 = Static<typeof EeeAggregateSchema030>;
export type EeeInstance020 = Static<typeof EeeInstanceSchema020>;
export type EeeInstance021 = Static<typeof EeeInstanceSchema021>;
export type EeeInstance022 = Static<typeof EeeInstanceSchema022>;
export type EeeInstance030 = Static<typeof EeeInstanceSchema030>;

function has(doc: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(doc, key);
}
const INSTANCE_KEYS = [
  'sample_id',
  'interaction_type',
  'answer_attribution',
  'sample_hash',
  'messages',
  'interactions',
];

/** An instance row: its own keys (sample_id, interaction_type, ...) next to a foreign key; never an aggregate's. */
export function looksLikeEeeInstance(doc: Record<string, unknown>): boolean {
  if (has(doc, 'evaluation_results') || has(doc, 'source_metadata')) return false;
  const own = INSTANCE_KEYS.filter((k) => has(doc, k)).length;
  const linked = has(doc, 'evaluation_id') || has(doc, 'model_id');
  const scored = has(doc, 'input') && has(doc, 'evaluation');
  return (own >= 1 && (linked || scored)) || own >= 2 || (linked && scored);
}

/** An aggregate record: evaluation_results, or model_info together with source_metadata / eval_library. */
export function looksLikeEeeAggregate(doc: Record<string, unknown>): boolean {
  if (has(doc, 'sample_id') || has(doc, 'interaction_type')) return false;
  if (has(doc, 'evaluation_results')) return true;
  return has(doc, 'model_info') && (has(doc, 'source_metadata') || has(doc, 'eval_library'));
}

const REFERENCE_DIR = 'eee/schemas';

function aggregateVersion(
  version: string,
  schema: FormatVersion['schema'],
  withUpstream = true,
): FormatVersion {
  return {
    version,
    dialect: 'draft-07',
    schema,
    schemaVersionValues: [version],
    explainSchemaError: explainAggregateError(version),
    // 0.1.0's schema is in the upstream repository's history (tag v0.1.0), not in ../shared/reference.
    ...(withUpstream ? { upstreamSchema: `${REFERENCE_DIR}/v${version}/eval.schema.json` } : {}),
    rules: [metricIdRule],
  };
}
function instanceVersion(version: string, schema: FormatVersion['schema']): FormatVersion {
  return {
    version,
    dialect: 'draft-07',
    schema,
    // Older files spell it instance_level_eval_0.2.x, newer ones (and the real 0.2.1 file) just 0.2.x.
    schemaVersionValues: [version, `instance_level_eval_${version}`],
    explainSchemaError: explainInstanceError(version),
    upstreamSchema: `${REFERENCE_DIR}/v${version}/instance_level_eval.schema.json`,
  };
}

export const eeeAggregateType: DocumentType = {
  id: 'eee.aggregate',
  family: 'eee',
  title: 'Every Eval Ever aggregate record',
  looksLike: looksLikeEeeAggregate,
  versions: [
    aggregateVersion('0.1.0', EeeAggregateSchema010, false),
    aggregateVersion('0.2.0', EeeAggregateSchema020),
    aggregateVersion('0.2.1', EeeAggregateSchema021),
    aggregateVersion('0.2.2', EeeAggregateSchema022),
    aggregateVersion('0.3.0', EeeAggregateSchema030),
  ],
};

export const eeeInstanceType: DocumentType = {
  id: 'eee.instance',
  family: 'eee',
  title: 'Every Eval Ever instance-level row',
  looksLike: looksLikeEeeInstance,
  versions: [
    instanceVersion('0.2.0', EeeInstanceSchema020),
    instanceVersion('0.2.1', EeeInstanceSchema021),
    instanceVersion('0.2.2', EeeInstanceSchema022),
    instanceVersion('0.3.0', EeeInstanceSchema030),
  ],
};

/** The eee document types, each with every version. */
export const eeeTypes: DocumentType[] = [eeeAggregateType, eeeInstanceType];
