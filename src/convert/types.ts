/**
 * The contract every converter source implements (one file per source under `src/convert/sources/`, listed as data
 * in `src/convert/registry.ts`). A source turns a harness's native output into Every Eval Ever 0.3.0 records whose
 * instance rows are streamed, never held in memory. The same records feed `evalkit convert` (files out, through
 * `writeConverted`) and `evalkit ingest` (store in): one importer per tool.
 */

import type { DeclaredMetricFactsFile } from './metric-facts.js';
import type { DeclaredFacts, RowFacts } from '../checks/reconciliation.js';

/** The sources `--from` accepts (besides `auto`). */
export type SourceId =
  | 'lm-eval'
  | 'inspect'
  | 'helm'
  | 'promptfoo'
  | 'openai-evals'
  | 'openai-evals-api'
  | 'bench'
  | 'infereval'
  | 'lighteval'
  | 'alpaca-eval'
  | 'hf-eval-results'
  | 'evalkit-run';

/** What the user can say that the source cannot (CLI `--source-organization-name`, ...). All optional. */
export interface ConvertOverrides {
  sourceOrganizationName?: string;
  sourceOrganizationUrl?: string;
  evaluatorRelationship?: 'first_party' | 'third_party' | 'collaborative' | 'other';
  collection?: string;
  developer?: string;
  modelId?: string;
  deploymentType?: 'self_deployed' | 'externally_managed' | 'unknown';
  modelAvailability?: 'open_weights' | 'closed_weights' | 'unknown';
  /** Unix epoch seconds as a string, as EEE `retrieved_timestamp` is written. */
  retrievedTimestamp?: string;
  /** `--model-map`: a source's model name (or the id evalkit derives) → the model to write. */
  modelMap?: ModelMap;
  /** `--metric-facts`: facts declared per metric name, winning over the table and over guesses. */
  metricFacts?: DeclaredMetricFactsFile;
  /** The file the metric facts were read from, named when a declared fact contradicts a score. */
  metricFactsFile?: string;
}

/** One model as the user names it in a model map. */
export interface MappedModel {
  /** `developer/name`, e.g. `meta-llama/Llama-3.1-8B`. */
  id: string;
  developer?: string;
  name?: string;
}

/** A model map: keys are source model names (as the source writes them) or derived ids. */
export type ModelMap = Record<string, MappedModel>;

/** How rows from large JSONL files are converted on worker threads (see row-blocks.ts). All optional. */
export interface ParallelOptions {
  /**
   * Threads: this one and `jobs − 1` workers (default: the machine's parallelism, at most 3, for memory); 1 converts
   * in this thread only.
   */
  jobs?: number;
  /** Files smaller than this are converted in this thread (default 32 MiB; one chunk when `jobs` is given). */
  thresholdBytes?: number;
  /** The byte range one worker task reads (default 1 MiB). */
  chunkBytes?: number;
}

export interface ConvertOptions {
  overrides: ConvertOverrides;
  parallel?: ParallelOptions;
}

/** What happened to one source field: mapped to a record field, inferred, kept in additional_details, or not mapped. */
export interface FieldFate {
  /** The source field, as a dotted path or JSON pointer into the source (e.g. `results.mmlu.acc,none`). */
  field: string;
  fate: 'mapped' | 'inferred' | 'additional_details' | 'not-mapped';
  /** Where it went in the record (JSON pointer), when it went somewhere. */
  to?: string;
  /** Why it was inferred or not mapped. */
  reason?: string;
}

/** One EEE 0.3.0 record produced from a source. */
export interface ConvertedRecord {
  source: SourceId;
  /** The file or folder the record came from (as given, not resolved). */
  sourcePath: string;
  /**
   * The aggregate record, EEE 0.3.0, complete except `detailed_evaluation_results.checksum` / `total_rows`, which
   * the writer fills in after streaming the rows. `detailed_evaluation_results` is absent when there are no rows.
   */
  aggregate: Record<string, unknown>;
  /** `data/<collection>/<developer>/<model>/<uuid4>.json`, relative to the datastore root. */
  aggregatePath: string;
  /** `data/<collection>/<developer>/<model>/<uuid4>_samples.jsonl`, when the record has instance rows. */
  samplesPath?: string;
  /** The instance rows (EEE 0.3.0 instance objects), streamed from the source; iterate it once. */
  rows?: () => AsyncIterable<Record<string, unknown>>;
  /**
   * The same rows already serialised: blocks of whole JSONL lines, byte for byte what the writer makes of `rows`
   * (one `JSON.stringify(row)` and a newline each). Offered by sources that can make them faster (on worker
   * threads); the writer uses them when present. A block's bytes are valid until the next block is requested
   * (their memory may be reused).
   */
  rowBlocks?: () => AsyncIterable<{ bytes: Buffer; rows: number }>;
  /** Every source field's fate (the per-source report). */
  fields: FieldFate[];
  /** Things a reader must know (e.g. "the run did not finish: status cancelled"). */
  notes: string[];
  /** What the source declares about each result (by evaluation_result_id), for reconciliation (checks/reconciliation.ts). */
  declared?: ReadonlyMap<string, DeclaredFacts>;
}

/** The first bytes of a file, or the names in a folder, for cheap recognition. */
export interface Probe {
  path: string;
  isDirectory: boolean;
  /** Entry names when a directory (not recursive). */
  entries?: string[];
  /** Up to the first 64 KiB of a file, as text (binary files: latin1). */
  head?: string;
}

export interface SourceConverter {
  id: SourceId;
  /** One line for `--help` and for the "expected one of" error. */
  description: string;
  /** True when this source claims the file or folder. Must be cheap and must not throw. */
  detect(probe: Probe): boolean;
  /** The records under a claimed path (a folder may hold several runs). Errors are `DataError`s naming file and line/member. */
  convert(path: string, options: ConvertOptions): AsyncIterable<ConvertedRecord>;
}

/** A row's JSON text and the facts the writer's reconciliation would read back from it (tallyBlock). */
export interface MappedRow {
  json: string;
  facts: RowFacts;
  /** True only when `json` is known to hold nothing but ASCII (then its UTF-8 bytes are its Latin-1 bytes). */
  ascii?: boolean;
}
