/**
 * A finished run as an Every Eval Ever 0.3.0 pair in the datastore layout:
 * `data/<collection>/<developer>/<model>/<uuid4>.json` (aggregate) and `<uuid4>_samples.jsonl` (one row per sample).
 * The uuid is derived from the η id, so writing the same run twice gives the same paths and the same bytes.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IoError } from '../errors.js';
import { sampleHash } from '../formats/eee/sample-hash.js';
import { datastoreSegment as segment, derivedUuid4 } from '../formats/eee/datastore.js';
import type { Benchmark } from '../formats/infereval/types.js';
import { writeFileAtomic } from '../io/atomic.js';
import { consensusVerdict, sampleFailed } from '../metrics/infereval/model.js';
import { evaluationMetrics } from '../metrics/infereval/evaluation-metrics.js';
import { planPrompts, type PromptOptions } from './prompts.js';
import type { BenchmarkLike, SampleRecord } from './types.js';

export const EEE_COLLECTION = 'infereval';
export { derivedUuid4 };

const epochSeconds = (iso: unknown): string | undefined =>
  typeof iso === 'string' && !Number.isNaN(Date.parse(iso)) ? String(Date.parse(iso) / 1000) : undefined;

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
  let eta: any;
  try {
    eta = JSON.parse(await readFile(input.etaPath, 'utf8'));
  } catch (error) {
    throw new IoError('io.read', `cannot read ${input.etaPath}: ${(error as Error).message}`);
  }
  const benchmark = input.benchmark as unknown as BenchmarkLike;
  const provider: string = eta.model.provider;
  const modelId: string = eta.model.model_id;
  const parts = modelId.split('/');
  const developer = parts.length > 1 ? parts[0] : provider === 'replay' ? 'unknown' : provider;
  const modelName = parts[parts.length - 1];
  const uuid = derivedUuid4(`evalkit-eee:${eta.id}`);
  const relDir = `data/${EEE_COLLECTION}/${segment(developer)}/${segment(modelName)}`;
  const samplesRel = `${relDir}/${uuid}_samples.jsonl`;
  const evaluationId = `${EEE_COLLECTION}/${eta.benchmark_id}/${eta.id}`;
  const fullModelId = `${developer}/${modelName}`;
  const official = input.baseUrl === undefined && (provider === 'openai' || provider === 'anthropic');

  const plan = planPrompts(benchmark, {
    questionForm: eta.endorsement_config.question_form ?? 'support',
    coherenceFrameId: eta.endorsement_config.coherence_frame_id ?? 'thin-v1',
    paraphraseVariant: eta.paraphrase_variant ?? 0,
    stripTex: input.prompts?.stripTex ?? true,
  });
  const byId = new Map(benchmark.items.map((it) => [it.id, it]));
  const agreementId = `${eta.benchmark_id}.sample_consensus_agreement`;

  // One row per sample; failed samples are kept, with `error`, and left out of the agreement score.
  const rows: string[] = [];
  let agreeing = 0;
  let voting = 0;
  for (const item of eta.items) {
    const consensus = consensusVerdict(item.analyst_verdicts);
    const prompt = plan.build(byId.get(item.id) ?? item);
    const inputRecord = {
      raw: prompt.user,
      formatted: prompt.system === null ? prompt.user : `${prompt.system}\n\n${prompt.user}`,
      reference: [consensus],
    };
    for (const s of item.samples as SampleRecord[]) {
      const failed = sampleFailed(s);
      const correct = !failed && s.parsed_verdict === consensus;
      if (!failed) {
        voting++;
        if (correct) agreeing++;
      }
      const row: Record<string, unknown> = {
        schema_version: '0.3.0',
        evaluation_id: evaluationId,
        model_id: fullModelId,
        evaluation_name: agreementId,
        evaluation_result_id: agreementId,
        sample_id: `${item.id}:sample-${s.sample_index}`,
        sample_hash: sampleHash(inputRecord),
        interaction_type: 'single_turn',
        input: inputRecord,
        output: { raw: [s.raw_response] },
        answer_attribution: [
          {
            turn_idx: 0,
            source: 'output.raw',
            extracted_value: s.parsed_verdict,
            extraction_method: 'infereval-verdict-parse',
            is_terminal: true,
          },
        ],
        evaluation: { score: correct ? 1 : 0, is_correct: correct },
      };
      if (s.usage && Number.isInteger(s.usage.input_tokens) && Number.isInteger(s.usage.output_tokens)) {
        const i = s.usage.input_tokens as number;
        const o = s.usage.output_tokens as number;
        row.token_usage = { input_tokens: i, output_tokens: o, total_tokens: i + o };
      }
      if (typeof s.wall_time_ms === 'number') row.performance = { latency_ms: s.wall_time_ms };
      if (s.provider_error) row.error = s.provider_error;
      row.metadata = {
        item_id: item.id,
        sample_index: String(s.sample_index),
        parse_status: s.parse_status,
        finish_reason: s.finish_reason ?? '',
        analyst_verdicts: item.analyst_verdicts.join(','),
        model_verdict: item.model_verdict,
      };
      rows.push(JSON.stringify(row));
    }
  }
  const samplesText = rows.length === 0 ? '' : `${rows.join('\n')}\n`;

  const report = evaluationMetrics(eta);
  const source_data = {
    dataset_name: eta.benchmark_id,
    source_type: 'other',
    additional_details: { benchmark_hash: eta.benchmark_hash ?? '', format: 'infereval benchmark 1.0' },
  };
  const params = Object.fromEntries(
    Object.entries({
      ...eta.model.params,
      ...eta.endorsement_config,
      paraphrase_variant: eta.paraphrase_variant,
    }).map(([k, v]) => [
      k,
      v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
        ? v
        : JSON.stringify(v),
    ]),
  );
  const result = (
    id: string,
    description: string,
    kind: string,
    score: number,
    min: number,
    extra: Record<string, string> = {},
  ): unknown => ({
    evaluation_result_id: `${eta.benchmark_id}.${id}`,
    evaluation_name: `${eta.benchmark_id}.${id}`,
    source_data,
    metric_config: {
      evaluation_description: description,
      metric_id: `infereval.${id}`,
      metric_name: id,
      metric_kind: kind,
      metric_unit: kind === 'kappa' ? 'kappa' : 'proportion',
      metric_parameters: params,
      lower_is_better: false,
      score_type: 'continuous',
      min_score: min,
      max_score: 1,
    },
    score_details: { score, details: { n_items: String(report.n), ...extra } },
  });
  const results: unknown[] = [
    result(
      'coverage',
      'Share of items on which the model gave a substantive (good/bad) majority verdict',
      'coverage',
      report.coverage,
      0,
    ),
  ];
  if (report.cohens_kappa_consensus !== null) {
    results.push(
      result(
        'cohens_kappa_consensus',
        "Cohen's kappa between the model's verdicts and the analysts' consensus",
        'kappa',
        report.cohens_kappa_consensus,
        -1,
      ),
    );
  }
  results.push(
    result(
      'sample_consensus_agreement',
      "Share of answered samples whose verdict equals the analysts' consensus (failed samples excluded)",
      'accuracy',
      voting === 0 ? 0 : agreeing / voting,
      0,
      { answered_samples: String(voting), total_samples: String(rows.length) },
    ),
  );

  const checksum = createHash('sha256').update(samplesText).digest('hex');
  const aggregate: Record<string, unknown> = {
    schema_version: '0.3.0',
    evaluation_id: evaluationId,
    retrieved_timestamp: epochSeconds(eta.finished_at) ?? epochSeconds(eta.started_at) ?? '0',
    source_metadata: {
      source_name: 'evalkit evaluate',
      source_type: 'evaluation_run',
      source_organization_name: 'evalkit',
      evaluator_relationship: 'third_party',
      additional_details: {
        infereval_evaluation_id: String(eta.id),
        framework_version: String(eta.framework_version),
      },
    },
    eval_library: { name: 'evalkit', version: String(eta.framework_version).replace(/^evalkit-/, '') },
    model_info: {
      name: modelName,
      id: fullModelId,
      developer,
      inference_platform: provider,
      additional_details: {
        deployment_type: official ? 'externally_managed' : 'unknown',
        model_availability: official ? 'closed_weights' : 'unknown',
      },
    },
    evaluation_results: results,
    detailed_evaluation_results: {
      format: 'jsonl',
      file_path: samplesRel,
      hash_algorithm: 'sha256',
      checksum,
      total_rows: rows.length,
    },
  };
  const started = epochSeconds(eta.started_at);
  if (started !== undefined) aggregate.evaluation_timestamp = started;

  const samplesPath = join(input.outDir, samplesRel);
  const aggregatePath = join(input.outDir, relDir, `${uuid}.json`);
  await writeFileAtomic(samplesPath, samplesText);
  await writeFileAtomic(aggregatePath, `${JSON.stringify(aggregate, null, 2)}\n`);
  return {
    aggregate: aggregatePath,
    samples: samplesPath,
    evaluation_id: evaluationId,
    total_rows: rows.length,
  };
}
