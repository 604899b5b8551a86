/**
 * infereval evaluations (η) as EEE 0.3.0: the one mapping behind both `evalkit convert` and `evaluate --eee-out`.
 *
 * Results: coverage, Cohen's kappa against the analysts' consensus (when defined) and the share of answered samples
 * agreeing with the consensus; `evaluation_name` is the benchmark id. One instance row per sample (failed samples
 * kept with `error`, scored 0 and left out of the agreement), streamed item by item. The prompt of each row is
 * rebuilt from the benchmark exactly as the run built it; the converter finds the benchmark beside the η (same
 * `benchmark_hash`), and without it rows carry the item's premise and conclusion ids instead (and a note says so).
 */
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DataError } from '../../errors.js';
import { benchmarkHash } from '../../formats/infereval/hash.js';
import { loadInfereval } from '../../validate/infereval.js';
import type { Benchmark } from '../../formats/infereval/types.js';
import { evaluationMetrics } from '../../metrics/infereval/evaluation-metrics.js';
import { consensusVerdict, sampleFailed } from '../../metrics/infereval/model.js';
import { planPrompts, type PromptOptions } from '../../formats/infereval/prompts.js';
import type { BenchmarkLike, SampleRecord } from '../../run/types.js';
import { readJsonSource } from '../read.js';
import { isJsonObject } from '../../io/json-value.js';
import { RecordDriver } from '../driver.js';
import { epochSeconds, rowMaker } from '../record.js';
import type { ConvertedRecord, ConvertOptions, ConvertOverrides, Probe, SourceConverter } from '../types.js';

type Obj = Record<string, unknown>;

export const INFEREVAL_COLLECTION = 'infereval';

export interface InferevalMappingInput {
  eta: any;
  /** The benchmark the η ran (normalised), to rebuild each prompt; absent → ids stand in for prompts. */
  benchmark?: Benchmark;
  /** The prompt options the run used (η does not record TeX stripping). */
  prompts?: Partial<PromptOptions>;
  /** The run's provider base URL, when known (`evaluate`): an official API only without one. */
  baseUrl?: string;
  /** Whether the base URL is known at all (false when converting a stored η). */
  baseUrlKnown: boolean;
  sourcePath: string;
  overrides: ConvertOverrides;
  /** `evaluate --eee-out` names its source evalkit and itself; a converted η names what it says. */
  producedByEvaluate: boolean;
}

/** The EEE record of an η (rows streamed from its items). */
export function inferevalRecord(input: InferevalMappingInput): ConvertedRecord {
  const { overrides } = input;
  const eta = input.eta;
  if (!isJsonObject(input.eta) || !isJsonObject(eta.model) || !Array.isArray(eta.items))
    throw new DataError('convert.infereval.shape', `${input.sourcePath}: not an infereval evaluation (η)`);
  const d = new RecordDriver('infereval', input.sourcePath, { overrides });
  const { report, notes } = d;
  const provider = String((eta.model as Obj).provider ?? 'unknown');
  const modelId = String((eta.model as Obj).model_id ?? 'unknown');
  const official =
    (provider === 'openai' || provider === 'anthropic') &&
    (input.baseUrlKnown ? input.baseUrl === undefined : true);
  const model = d.model({
    name: modelId,
    field: 'model.model_id',
    developer: provider === 'replay' ? 'unknown' : provider,
    inferencePlatform: provider,
    deployment: official
      ? {
          deploymentType: 'externally_managed',
          modelAvailability: 'closed_weights',
          reason: input.baseUrlKnown
            ? `provider ${provider} through its official API`
            : `provider ${provider} (the η records no base URL: its official API assumed)`,
        }
      : undefined,
  });
  // The model map and metric facts name and describe; they do not make another record.
  const noOverrides = Object.keys(overrides).every((k) => k === 'modelMap' || k === 'metricFacts');
  const ids = d.ids({
    digest: String(eta.id),
    defaultCollection: INFEREVAL_COLLECTION,
    // The id `evaluate --eee-out` has always used, so a converted η and the run's own pair are the same record.
    seed: noOverrides ? `evalkit-eee:${eta.id}` : undefined,
    evaluationId: noOverrides ? `${INFEREVAL_COLLECTION}/${eta.benchmark_id}/${eta.id}` : undefined,
  });
  report.mapped('id', '/evaluation_id');

  const benchmarkId = String(eta.benchmark_id);
  const agreementId = `${benchmarkId}.sample_consensus_agreement`;
  let agreeing = 0;
  let voting = 0;
  let total = 0;
  for (const item of eta.items as any[]) {
    const consensus = consensusVerdict(item.analyst_verdicts);
    for (const s of item.samples as SampleRecord[]) {
      total++;
      if (sampleFailed(s)) continue;
      voting++;
      if (s.parsed_verdict === consensus) agreeing++;
    }
  }
  const metrics = evaluationMetrics(eta);
  const sourceData = {
    dataset_name: benchmarkId,
    source_type: 'other',
    additional_details: {
      benchmark_hash: String(eta.benchmark_hash ?? ''),
      format: 'infereval benchmark 1.0',
    },
  };
  report.mapped('benchmark_id', '/evaluation_results/*/evaluation_name');
  const params = Object.fromEntries(
    Object.entries({
      ...((eta.model as Obj).params as Obj),
      ...(eta.endorsement_config as Obj),
      paraphrase_variant: eta.paraphrase_variant,
    }).map(([k, v]) => [
      k,
      v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
        ? v
        : JSON.stringify(v),
    ]),
  );
  report.mapped(
    'model.params, endorsement_config, paraphrase_variant',
    '/evaluation_results/*/metric_config/metric_parameters',
  );
  const results = d.results;
  const add = (id: string, metric: string, description: string, score: number, extra: Obj = {}): void => {
    results.add({
      evaluationName: benchmarkId,
      metric,
      metricId: `infereval.${id}`,
      metricName: id,
      resultId: `${benchmarkId}.${id}`,
      field: `items (${id})`,
      score,
      description,
      lowerIsBetter: { value: false, field: `infereval ${id} definition` },
      sourceData,
      details: { n_items: metrics.n, ...extra },
      metricParameters: params,
    });
  };
  add(
    'coverage',
    'coverage',
    'Share of items on which the model gave a substantive (good/bad) majority verdict',
    metrics.coverage,
  );
  if (metrics.cohens_kappa_consensus !== null)
    add(
      'cohens_kappa_consensus',
      'cohens_kappa',
      "Cohen's kappa between the model's verdicts and the analysts' consensus",
      metrics.cohens_kappa_consensus,
    );
  add(
    'sample_consensus_agreement',
    'accuracy',
    "Share of answered samples whose verdict equals the analysts' consensus (failed samples excluded)",
    voting === 0 ? 0 : agreeing / voting,
    { answered_samples: voting, total_samples: total },
  );

  const frameworkVersion = String(eta.framework_version ?? 'unknown');
  // An η written by `evalkit evaluate` converts to the very pair its --eee-out wrote.
  const byEvalkit = frameworkVersion.startsWith('evalkit') || input.producedByEvaluate;
  const finished = epochSeconds(eta.finished_at);
  const started = epochSeconds(eta.started_at);
  const retrieved = finished ?? started;
  const aggregate = d.aggregate({
    sourceName: byEvalkit ? 'evalkit evaluate' : 'infereval evaluation (η)',
    organization: byEvalkit ? { name: 'evalkit', field: 'framework_version' } : undefined,
    evaluatorRelationship: byEvalkit ? { value: 'third_party', field: 'framework_version' } : undefined,
    sourceDetails: { infereval_evaluation_id: String(eta.id), framework_version: frameworkVersion },
    evalLibrary: byEvalkit
      ? { name: 'evalkit', version: frameworkVersion.replace(/^evalkit-/, '') }
      : { name: 'infereval', version: frameworkVersion },
    retrievedTimestamp: retrieved
      ? { value: retrieved, field: finished ? 'finished_at' : 'started_at' }
      : undefined,
    evaluationTimestamp: started ? { value: started, field: 'started_at' } : undefined,
    hasRows: total > 0,
  });

  const benchmark = input.benchmark as unknown as BenchmarkLike | undefined;
  if (!benchmark)
    notes.push(
      'the benchmark was not found beside the η (same benchmark_hash): rows carry premise and conclusion ids, not the prompts',
    );
  const plan = benchmark
    ? planPrompts(benchmark, {
        questionForm: eta.endorsement_config?.question_form ?? 'support',
        coherenceFrameId: eta.endorsement_config?.coherence_frame_id ?? 'thin-v1',
        paraphraseVariant: eta.paraphrase_variant ?? 0,
        stripTex: input.prompts?.stripTex ?? true,
      })
    : undefined;
  const byId = new Map((benchmark?.items ?? []).map((it) => [it.id, it]));
  const makeRow = rowMaker(ids.evaluationId, model.id);
  report.mapped('items[].samples[]', 'instance rows');

  async function* rows(): AsyncGenerator<Obj> {
    for (const item of eta.items as any[]) {
      const consensus = consensusVerdict(item.analyst_verdicts);
      let raw: string;
      let formatted: string;
      if (plan) {
        const prompt = plan.build(byId.get(item.id) ?? item);
        raw = prompt.user;
        formatted = prompt.system === null ? prompt.user : `${prompt.system}\n\n${prompt.user}`;
      } else {
        raw = JSON.stringify({ item: item.id, premises: item.premises, conclusions: item.conclusions });
        formatted = raw;
      }
      for (const s of item.samples as SampleRecord[]) {
        const failed = sampleFailed(s);
        const correct = !failed && s.parsed_verdict === consensus;
        const row = makeRow({
          evaluationName: benchmarkId,
          evaluationResultId: agreementId,
          sampleId: `${item.id}:sample-${s.sample_index}`,
          input: { raw, formatted, reference: [consensus] },
          output: { raw: [s.raw_response] },
          answerAttribution: [
            {
              turn_idx: 0,
              source: 'output.raw',
              extracted_value: s.parsed_verdict,
              extraction_method: 'infereval-verdict-parse',
              is_terminal: true,
            },
          ],
          evaluation: { score: correct ? 1 : 0, is_correct: correct },
          tokenUsage:
            s.usage && Number.isInteger(s.usage.input_tokens) && Number.isInteger(s.usage.output_tokens)
              ? {
                  input_tokens: s.usage.input_tokens,
                  output_tokens: s.usage.output_tokens,
                  total_tokens: (s.usage.input_tokens as number) + (s.usage.output_tokens as number),
                }
              : undefined,
          performance: typeof s.wall_time_ms === 'number' ? { latency_ms: s.wall_time_ms } : undefined,
          error: s.provider_error ?? undefined,
          metadata: {
            item_id: item.id,
            sample_index: String(s.sample_index),
            parse_status: s.parse_status,
            finish_reason: s.finish_reason ?? '',
            analyst_verdicts: item.analyst_verdicts.join(','),
            model_verdict: item.model_verdict,
          },
        });
        yield row;
      }
    }
  }
  return d.record({ aggregate, rows: total > 0 ? rows : undefined });
}

/** A benchmark beside the η whose hash is the η's benchmark_hash. */
async function findBenchmark(etaPath: string, hash: unknown): Promise<Benchmark | undefined> {
  if (typeof hash !== 'string') return undefined;
  const dir = dirname(etaPath);
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.json')).sort();
  for (const name of names) {
    const path = join(dir, name);
    if (path === etaPath) continue;
    try {
      const b = await loadInfereval(path, 'benchmark');
      if (benchmarkHash(b as unknown as Record<string, unknown>) === hash) return b;
    } catch {
      // Not a benchmark (or not a valid one): keep looking.
    }
  }
  return undefined;
}

export const inferevalSource: SourceConverter = {
  id: 'infereval',
  description: 'infereval evaluation η (.json with benchmark_id, benchmark_hash, endorsement_config, items)',
  detect(probe: Probe): boolean {
    if (probe.isDirectory || probe.head === undefined || !probe.path.endsWith('.json')) return false;
    return (
      /"benchmark_hash"\s*:/.test(probe.head) &&
      /"(endorsement_config|framework_version)"\s*:/.test(probe.head)
    );
  },
  convert(path: string, options: ConvertOptions): AsyncIterable<ConvertedRecord> {
    return (async function* () {
      const { value } = await readJsonSource(path);
      const eta = value as any;
      const benchmark = await findBenchmark(path, isJsonObject(eta) ? eta.benchmark_hash : undefined);
      yield inferevalRecord({
        eta,
        benchmark,
        baseUrlKnown: false,
        sourcePath: path,
        overrides: options.overrides,
        producedByEvaluate: false,
      });
    })();
  },
};
