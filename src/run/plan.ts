/**
 * The runs `evalkit evaluate` makes, decided before any request: one per paraphrase variant with
 * `--paraphrase-cycle` (each its own η, journal and run id), else one; and, for `--dry-run`, every prompt they
 * would send.
 */
import { basename } from 'node:path';
import { paraphraseVariantCount, planPrompts } from '../formats/infereval/prompts.js';
import { journalPathFor } from './journal.js';
import { buildRequest, type RunConfig } from './runner.js';
import type { RunSettings } from './settings.js';
import type { BenchmarkLike } from './types.js';

export interface PlannedRun {
  variant: number;
  config: RunConfig;
  outputPath: string;
  journalPath: string;
  runId?: string;
}

/** `<benchmark stem>.<model>.eta.json`: the η's name when -o is not given. */
export function defaultEtaPath(benchmarkPath: string, model: string): string {
  const stem = basename(benchmarkPath)
    .replace(/\.json$/i, '')
    .replace(/\.benchmark$/i, '');
  return `${stem}.${model.replace(/[^A-Za-z0-9._-]+/g, '_')}.eta.json`;
}

/** The η of one paraphrase variant in a cycle: ETA.v<k>.json. */
export function variantPath(path: string, variant: number): string {
  return /\.json$/i.test(path) ? path.replace(/\.json$/i, `.v${variant}.json`) : `${path}.v${variant}`;
}

/** The paraphrase variants a run covers: all of them in a cycle, else the one chosen. */
export function plannedVariants(settings: RunSettings, benchmark: BenchmarkLike): number[] {
  return settings.cycle
    ? Array.from({ length: paraphraseVariantCount(benchmark) }, (_, k) => k)
    : [settings.config.prompts.paraphraseVariant];
}

/** One run per variant, with its η path (`output`, absolute), journal and run id (`<id>-v<k>` in a cycle). */
export function planEvaluation(
  settings: RunSettings,
  benchmark: BenchmarkLike,
  output: string,
): PlannedRun[] {
  return plannedVariants(settings, benchmark).map((variant) => {
    const outputPath = settings.cycle ? variantPath(output, variant) : output;
    return {
      variant,
      config: { ...settings.config, prompts: { ...settings.config.prompts, paraphraseVariant: variant } },
      outputPath,
      journalPath: journalPathFor(outputPath),
      runId:
        settings.runId === undefined
          ? undefined
          : settings.cycle
            ? `${settings.runId}-v${variant}`
            : settings.runId,
    };
  });
}

export interface DryRunPrompt {
  paraphrase_variant: number;
  item: string;
  samples: number;
  system: string | null;
  user: string;
}

/** Every prompt the runs would send (once per item; each is sent `samples` times). */
export function dryRunPrompts(settings: RunSettings, benchmark: BenchmarkLike): DryRunPrompt[] {
  const prompts: DryRunPrompt[] = [];
  for (const variant of plannedVariants(settings, benchmark)) {
    const config = {
      ...settings.config,
      prompts: { ...settings.config.prompts, paraphraseVariant: variant },
    };
    const plan = planPrompts(benchmark, config.prompts);
    for (const item of benchmark.items) {
      const req = buildRequest(plan, config, item, settings.runId ?? 'dry-run', 0);
      prompts.push({
        paraphrase_variant: variant,
        item: item.id,
        samples: config.nSamples,
        system: req.system,
        user: req.user,
      });
    }
  }
  return prompts;
}
