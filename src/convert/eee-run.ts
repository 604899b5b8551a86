/**
 * `evaluate --eee-out`: a finished run as an Every Eval Ever 0.3.0 pair in the datastore layout
 * (`data/<collection>/<developer>/<model>/<uuid4>.json` and `<uuid4>_samples.jsonl`), through the same mapping as
 * `evalkit convert` of an η (`convert/sources/infereval.ts`) and the same streaming writer. The uuid is derived from
 * the η id, so writing the same run twice gives the same paths and the same bytes.
 */
import { derivedUuid4 } from '../formats/eee/datastore.js';
import type { Benchmark } from '../formats/infereval/types.js';
import { readJsonSource } from './read.js';
import { INFEREVAL_COLLECTION, inferevalRecord } from './sources/infereval.js';
import { writeConverted } from './write.js';
import type { PromptOptions } from '../formats/infereval/prompts.js';

export const EEE_COLLECTION = INFEREVAL_COLLECTION;
export { derivedUuid4 };

export interface EeeRunInput {
  etaPath: string;
  outDir: string;
  benchmark: Benchmark;
  /** The prompt options the run used (η does not record TeX stripping). */
  prompts?: Partial<PromptOptions>;
  baseUrl?: string;
}

export interface EeeRunOutput {
  aggregate: string;
  samples: string;
  evaluation_id: string;
  total_rows: number;
}

export async function writeEeeRun(input: EeeRunInput): Promise<EeeRunOutput> {
  const { value: eta } = await readJsonSource(input.etaPath);
  const record = inferevalRecord({
    eta,
    benchmark: input.benchmark,
    prompts: input.prompts,
    baseUrl: input.baseUrl,
    baseUrlKnown: true,
    sourcePath: input.etaPath,
    overrides: {},
    producedByEvaluate: true,
  });
  // A rerun of the same η replaces its own earlier pair.
  const written = await writeConverted(record, input.outDir, { force: true });
  return {
    aggregate: written.aggregatePath,
    samples: written.samplesPath ?? '',
    evaluation_id: record.aggregate.evaluation_id as string,
    total_rows: written.totalRows,
  };
}
