import { Option } from 'commander';
import type { ModelsReport } from '../../store/models.js';
import type { CommandModule } from '../context.js';
import { addDbOption, addLakeOption, json, lakeWarnings, storeTargetOf } from '../options.js';
import { textTable } from '../../report/tables.js';

interface ModelsFlags {
  db?: string;
  lake?: string;
  format: 'text' | 'json';
}

function renderText(report: ModelsReport): string {
  if (report.models.length === 0) return 'no models: the store holds no records\n';
  const cells = report.models.map((m) => [
    m.model_id,
    String(m.records.length),
    [...new Set(m.records.map((r) => r.source))].join(', '),
    [...new Set(m.records.flatMap((r) => r.benchmarks))].slice(0, 4).join(', ') +
      (new Set(m.records.flatMap((r) => r.benchmarks)).size > 4 ? ', …' : ''),
    m.flags.join(', '),
  ]);
  let out = `${textTable(['model', 'records', 'sources', 'benchmarks', 'flags'], cells, [1])}\n`;
  const pathModels = report.models.filter((m) => m.model_path);
  for (const m of pathModels) out += `${m.model_id}: derived from the local path ${m.model_path}\n`;
  for (const m of report.models.filter((x) => x.flags.includes('no-developer')))
    out += `${m.model_id}: no developer known${m.provider_prefix ? ` ("${m.provider_prefix}" is where it ran, not who made it)` : ''}; name it with --model-map\n`;
  const unnamed = report.models.filter((m) => m.flags.includes('unnamed')).length;
  if (unnamed > 0)
    out += `${unnamed} unnamed model(s): each run kept apart; name them with --model-id or --model-map\n`;
  if (report.look_alike.length > 0) {
    out += '\nids that look like one model (merge them with --model-map on convert or ingest):\n';
    for (const g of report.look_alike) out += `  ${g.ids.join('  ')}\n    ${g.reason}\n`;
  }
  return out;
}

export const modelsCommand: CommandModule = {
  register(program, io, run) {
    const command = program
      .command('models')
      .summary('the models in a store, their records, and ids that look like one model')
      .description(
        'Lists every model id in the store with its records (evaluation_id, source, benchmarks), flags models\n' +
          'the source did not name (each run kept apart), ids derived from a local path (local/<name>) and models\n' +
          'with no known developer (a server prefix such as ollama/ or vllm/ is not one), and groups the ids\n' +
          'that look like one model under several spellings: case, separators (Llama-3-8B / llama_3_8b), a -hf\n' +
          'suffix, developer aliases (meta / meta-llama, mistral / mistralai) or a developer left unknown. Merge\n' +
          'them by ingesting again with --model-map (see docs/convert.md).\n\n' +
          'Exit codes: 0 ok, 2 usage or I/O error (no store).',
      )
      .addOption(
        new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'),
      );
    addLakeOption(addDbOption(command)).action((flags: ModelsFlags) =>
      run(async () => {
        const { withReadStore } = await import('../../store/open.js');
        const { listModels } = await import('../../store/models.js');
        const report = await withReadStore(storeTargetOf(flags, io), lakeWarnings(io), listModels);
        io.stdout.write(flags.format === 'json' ? json(report) : renderText(report));
        return 0;
      }),
    );
  },
};
