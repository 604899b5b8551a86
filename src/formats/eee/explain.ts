// Clearer messages for schema errors whose cause is an upstream quirk or a version change. The verdict stays the
// upstream one; only the words change.
import type { FormatVersion } from '../types.js';

type SchemaError = Parameters<NonNullable<FormatVersion['explainSchemaError']>>[0];

function missing(error: SchemaError): string | undefined {
  const value = (error.params as { missingProperty?: unknown }).missingProperty;
  return typeof value === 'string' ? value : undefined;
}
function extra(error: SchemaError): string | undefined {
  const value = (error.params as { additionalProperty?: unknown }).additionalProperty;
  return typeof value === 'string' ? value : undefined;
}

export function explainAggregateError(version: string) {
  const before030 = version !== '0.3.0';
  return (error: SchemaError): string | undefined => {
    const { schemaPath, keyword, instancePath } = error;
    if (schemaPath.includes('/metric_config/')) {
      const levelsBranch = /\/metric_config\/(if|then\/required)$/.test(schemaPath);
      if (
        before030 &&
        levelsBranch &&
        (keyword === 'if' || ['level_names', 'has_unknown_level'].includes(missing(error) ?? ''))
      )
        return (
          `schema ${version} requires level_names and has_unknown_level when score_type is "levels" or absent ` +
          '(its condition does not check that score_type is present); set score_type, or add level_names and has_unknown_level'
        );
      if (/\/metric_config\/(if|then\/required)$/.test(schemaPath))
        return 'a metric with score_type "levels" needs level_names and has_unknown_level';
      if (/\/else\/(if|then\/required)$/.test(schemaPath))
        return 'a metric with score_type "continuous" needs min_score and max_score';
    }
    if (keyword === 'oneOf' && version === '0.1.0' && instancePath === '/source_data')
      return 'source_data (0.1.0) must be a list of URLs or a Hugging Face dataset object with dataset_name';
    if (keyword === 'oneOf' && instancePath.endsWith('/source_data'))
      return 'source_data must match exactly one kind by its source_type: "url" (with url), "hf_dataset" or "other"';
    if (keyword === 'pattern' && instancePath.endsWith('/file_path'))
      return 'file_path must be data/<collection>/<developer>/<model>/<uuid4>_samples.jsonl (a lowercase UUID4 is expected)';
    if (
      keyword === 'required' &&
      missing(error) === 'additional_details' &&
      schemaPath.includes('model_info')
    )
      return (
        `schema ${version} requires model_info.additional_details with deployment_type and model_availability ` +
        '(for the model and every judge); use "unknown" when not known'
      );
    if (keyword === 'required' && ['deployment_type', 'model_availability'].includes(missing(error) ?? ''))
      return `schema ${version} requires ${missing(error)} in model_info.additional_details; use "unknown" when not known`;
    if (keyword === 'required' && missing(error) === 'eval_library' && instancePath === '')
      return `schema ${version} requires eval_library {name, version} (since 0.2.1); use "unknown" for a version not known`;
    if (
      keyword === 'additionalProperties' &&
      instancePath === '' &&
      extra(error) === 'eval_library' &&
      version === '0.2.0'
    )
      return 'eval_library arrived in schema 0.2.1: set schema_version to "0.2.1" or later';
    if (keyword === 'type' && schemaPath.includes('additionalProperties/type') && !before030)
      return 'values of this map must be strings (JSON-encode numbers and objects)';
    if (keyword === 'type' && schemaPath.includes('additionalProperties/type'))
      return `values of this map must be strings in schema ${version} (JSON-encode numbers and objects)`;
    return undefined;
  };
}

export function explainInstanceError(version: string) {
  const turns = version === '0.2.0' ? 'interactions' : 'messages';
  return (error: SchemaError): string | undefined => {
    const { schemaPath, keyword, instancePath } = error;
    if (schemaPath.includes('/properties/metrics/'))
      return (
        `schema ${version} requires a top-level "metrics" object, when present on a multi_turn or agentic row, to ` +
        'contain num_turns (an upstream quirk: "metrics" is not a field of the row; num_turns belongs in evaluation). ' +
        'Remove "metrics"'
      );
    if (schemaPath.startsWith('#/allOf/0/') && instancePath.split('/').length <= 2)
      return `a single_turn row needs an "output" object and no ${turns} (null); if interaction_type is missing, set it`;
    if (schemaPath.startsWith('#/allOf/1/') && instancePath.split('/').length <= 2)
      return `a multi_turn or agentic row needs "${turns}" (an array) and a null "output"; if interaction_type is missing, set it`;
    if (keyword === 'additionalProperties' && instancePath === '' && extra(error) === 'interactions')
      return `"interactions" was renamed "messages" in schema 0.2.1`;
    if (keyword === 'type' && /^\/(input\/reference|output\/raw)$/.test(instancePath) && version !== '0.2.0')
      return `schema ${version} wants a list of strings here: wrap a single string as ["..."]`;
    return undefined;
  };
}
