/**
 * The legacy `model-index` block of a model card's YAML front matter (the Papers-with-Code shape the Hub still
 * renders): one per model, each result naming its task type, the dataset (its Hub id as `type`) and the metric.
 */
import type { HfEntry } from './entries.js';
import { toYaml, type YamlMap } from './yaml.js';

/** model id → its `model-index:` block. */
export function modelIndex(entries: HfEntry[]): Record<string, string> {
  const byModel = new Map<string, HfEntry[]>();
  for (const e of entries) byModel.set(e.model_id, [...(byModel.get(e.model_id) ?? []), e]);
  const out: Record<string, string> = {};
  for (const [model, list] of byModel) {
    const results: YamlMap[] = list.map((e) => ({
      task: { type: 'text-generation' },
      dataset: { name: e.benchmark, type: e.dataset_id, config: e.task_id, revision: e.revision },
      metrics: [{ type: e.metric, value: e.value, name: e.metric }],
      source: e.source ? { name: e.source.name ?? e.source.url, url: e.source.url } : undefined,
    }));
    out[model] = toYaml({ 'model-index': [{ name: model.slice(model.lastIndexOf('/') + 1), results }] });
  }
  return out;
}
