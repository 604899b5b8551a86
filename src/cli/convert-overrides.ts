// The options for what a converted source cannot say (who ran it, which collection, the model's id and
// deployment, when it was retrieved): shared by `convert` and `ingest`, which convert through the same importers.
import { Option, type Command } from 'commander';
import { UsageError } from '../errors.js';
import { readMetricFacts, readModelMap, unmatchedModelMapKeys } from '../convert/identity.js';
import { metricKey, overlappingFactKeys } from '../convert/metric-facts.js';
import type { ConvertOverrides } from '../convert/types.js';
import { resolvePath } from './options.js';

export interface OverrideFlags {
  sourceOrganizationName?: string;
  sourceOrganizationUrl?: string;
  evaluatorRelationship?: ConvertOverrides['evaluatorRelationship'];
  collection?: string;
  developer?: string;
  modelId?: string;
  deploymentType?: ConvertOverrides['deploymentType'];
  modelAvailability?: ConvertOverrides['modelAvailability'];
  retrievedTimestamp?: string;
  modelMap?: string;
  metricFacts?: string;
}

export function addOverrideOptions(command: Command): Command {
  return command
    .option('--source-organization-name <name>', 'who ran the evaluation (source_metadata)')
    .option('--source-organization-url <url>', 'their URL')
    .addOption(
      new Option('--evaluator-relationship <r>', 'relation of the evaluator to the model developer').choices([
        'first_party',
        'third_party',
        'collaborative',
        'other',
      ]),
    )
    .option('--collection <name>', 'datastore collection (default: the source id)')
    .option('--developer <name>', 'model developer (default: from the model name)')
    .option('--model-id <id>', 'model id, e.g. meta-llama/Llama-3.1-8B (default: from the source)')
    .addOption(
      new Option(
        '--deployment-type <t>',
        'model_info deployment_type (default: inferred or unknown)',
      ).choices(['self_deployed', 'externally_managed', 'unknown']),
    )
    .addOption(
      new Option(
        '--model-availability <a>',
        'model_info model_availability (default: inferred or unknown)',
      ).choices(['open_weights', 'closed_weights', 'unknown']),
    )
    .option(
      '--retrieved-timestamp <epoch>',
      'retrieved_timestamp in Unix seconds (default: the date in the source)',
    )
    .option(
      '--model-map <file>',
      'JSON file: a source model name (or the id evalkit derives) → {"id": "developer/name", "developer"?, "name"?}; ' +
        'names every run of a folder in one go (see docs/convert.md)',
    )
    .option(
      '--metric-facts <file>',
      'JSON file keyed by metric name: lower_is_better, min_score, max_score, score_type, metric_unit, metric_kind; ' +
        'declared facts win over the built-in table and over guesses (see docs/convert.md)',
    );
}

/**
 * The overrides read from files (`--model-map`, `--metric-facts`); a bad file is a UsageError naming it. Keys of
 * the facts file that one metric would match alike (`acc` and `acc,none`) are a warning naming both.
 */
export async function overrideFilesFrom(
  flags: OverrideFlags,
  cwd: string,
  warn: (message: string) => void = () => undefined,
): Promise<ConvertOverrides> {
  const o: ConvertOverrides = {};
  if (flags.modelMap !== undefined) o.modelMap = await readModelMap(resolvePath(cwd, flags.modelMap));
  if (flags.metricFacts !== undefined) {
    o.metricFacts = await readMetricFacts(resolvePath(cwd, flags.metricFacts));
    o.metricFactsFile = `--metric-facts ${flags.metricFacts}`;
    for (const keys of overlappingFactKeys(o.metricFacts))
      warn(
        `warning usage.metric-facts-overlap: --metric-facts ${flags.metricFacts}: the keys ${keys.map((k) => JSON.stringify(k)).join(' and ')} ` +
          `match the same metric ("${metricKey(keys[0])}"); which applies depends on the name a source writes: declare it once`,
      );
  }
  return o;
}

/** The overrides the flags ask for; an empty name or a timestamp that is not epoch seconds is a UsageError. */
export function overridesFrom(flags: OverrideFlags): ConvertOverrides {
  const o: ConvertOverrides = {};
  const nonEmpty = (value: string | undefined, flag: string): string | undefined => {
    if (value !== undefined && value.trim() === '')
      throw new UsageError('usage.bad-option', `${flag} must not be empty`);
    return value;
  };
  const set = <K extends keyof ConvertOverrides>(key: K, value: ConvertOverrides[K] | undefined): void => {
    if (value !== undefined) o[key] = value;
  };
  set('sourceOrganizationName', nonEmpty(flags.sourceOrganizationName, '--source-organization-name'));
  set('sourceOrganizationUrl', nonEmpty(flags.sourceOrganizationUrl, '--source-organization-url'));
  set('evaluatorRelationship', flags.evaluatorRelationship);
  set('collection', nonEmpty(flags.collection, '--collection'));
  set('developer', nonEmpty(flags.developer, '--developer'));
  set('modelId', nonEmpty(flags.modelId, '--model-id'));
  set('deploymentType', flags.deploymentType);
  set('modelAvailability', flags.modelAvailability);
  if (flags.retrievedTimestamp !== undefined) {
    const t = flags.retrievedTimestamp.trim();
    if (!/^\d+(\.\d+)?$/.test(t))
      throw new UsageError(
        'usage.bad-option',
        `--retrieved-timestamp expects Unix epoch seconds (e.g. 1767225600), got "${flags.retrievedTimestamp}"`,
      );
    o.retrievedTimestamp = t;
  }
  return o;
}

/** A warning for each `--model-map` entry that named no model of the sources just converted. */
export function modelMapWarnings(map: ConvertOverrides['modelMap']): { code: string; message: string }[] {
  return unmatchedModelMapKeys(map).map((key) => ({
    code: 'convert.model-map-unmatched',
    message: `--model-map entry ${JSON.stringify(key)} matched no model (a key is the source's model string exactly as written, e.g. "ollama/llama3.1", or the id evalkit derives)`,
  }));
}
