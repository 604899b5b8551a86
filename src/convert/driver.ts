/**
 * The one converter driver: what every source's record is made of, in one place. A source reads its run and
 * supplies the source-specific parts (the model as it names it, its results, its rows, its run identity); the
 * driver owns the identity rules (model id through `--model-id` / `--model-map`, paths and unnamed models, the
 * record id and datastore paths), the results (declared metric facts, assumed directions, unknown bounds,
 * non-finite scores), the run identity the store keeps the most complete copy by, the field report and the notes,
 * and assembles the aggregate and the ConvertedRecord the writer and the store take.
 */
import type { RunIdentity } from './identity.js';
import {
  buildAggregate,
  buildModel,
  convertedRecord,
  FieldReport,
  recordIds,
  ResultsBuilder,
  type AggregateInput,
  type BuiltModel,
  type ModelFacts,
  type RecordIds,
} from './record.js';
import type { ConvertedRecord, ConvertOptions, ConvertOverrides, SourceId } from './types.js';

type Obj = Record<string, unknown>;

export type DriverAggregateInput = Omit<
  AggregateInput,
  'ids' | 'model' | 'overrides' | 'report' | 'results' | 'leftOut' | 'run'
>;

export class RecordDriver {
  readonly report = new FieldReport();
  readonly notes: string[] = [];
  readonly results: ResultsBuilder;
  private built?: BuiltModel;
  private recordIdsOf?: RecordIds;
  private runIdentity?: RunIdentity;

  constructor(
    readonly source: SourceId,
    readonly sourcePath: string,
    readonly options: ConvertOptions,
  ) {
    this.results = new ResultsBuilder(
      this.report,
      options.overrides.metricFacts,
      options.overrides.metricFactsFile,
    );
  }

  get overrides(): ConvertOverrides {
    return this.options.overrides;
  }

  /** The model, from the source's model fields through the identity rules (see buildModel). */
  model(facts: ModelFacts): BuiltModel {
    const model = buildModel(facts, this.overrides, this.report);
    this.notes.push(...model.notes);
    this.built = model;
    return model;
  }

  /** The record's id and datastore paths (the model must be built first). */
  ids(input: {
    digest: string;
    discriminator?: string;
    defaultCollection: string;
    seed?: string;
    evaluationId?: string;
  }): RecordIds {
    this.recordIdsOf = recordIds({
      ...input,
      source: this.source,
      overrides: this.overrides,
      model: this.requireModel(),
      report: this.report,
    });
    return this.recordIdsOf;
  }

  /** The run's identity: the source's run id, whether it finished, the samples it scored. */
  run(identity: RunIdentity): void {
    this.runIdentity = identity;
  }

  /** The aggregate from the parts the driver holds and the source's own. */
  aggregate(input: DriverAggregateInput): Obj {
    if (this.recordIdsOf === undefined) throw new Error(`${this.source}: ids() before aggregate()`);
    return buildAggregate({
      ...input,
      ids: this.recordIdsOf,
      model: this.requireModel(),
      overrides: this.overrides,
      report: this.report,
      results: this.results.results,
      leftOut: this.results.leftOut,
      run: this.runIdentity,
    });
  }

  /** The record the writer and the store take. */
  record(parts: {
    aggregate: Obj;
    rows?: () => AsyncIterable<Obj>;
    rowBlocks?: ConvertedRecord['rowBlocks'];
    sourcePath?: string;
  }): ConvertedRecord {
    if (this.recordIdsOf === undefined) throw new Error(`${this.source}: ids() before record()`);
    return convertedRecord({
      source: this.source,
      sourcePath: parts.sourcePath ?? this.sourcePath,
      ids: this.recordIdsOf,
      aggregate: parts.aggregate,
      rows: parts.rows,
      rowBlocks: parts.rowBlocks,
      report: this.report,
      notes: this.notes,
      declared: this.results.declaredByResult,
    });
  }

  private requireModel(): BuiltModel {
    if (this.built === undefined) throw new Error(`${this.source}: model() first`);
    return this.built;
  }
}
