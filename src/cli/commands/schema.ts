import { Option } from 'commander';
import { UsageError } from '../../errors.js';
import { documentTypes, findType, findVersion } from '../../formats/registry.js';
import { renderSchema } from '../../validate/schemas.js';
import type { CliIO, CommandModule } from '../context.js';

function list(io: CliIO, format: 'text' | 'json'): number {
  if (format === 'json') {
    const rows = documentTypes.map((t) => ({
      type: t.id,
      family: t.family,
      title: t.title,
      versions: t.versions.map((v) => ({
        version: v.version,
        dialect: v.dialect,
        schema_version_values: v.schemaVersionValues,
      })),
    }));
    io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  if (documentTypes.length === 0) {
    io.stdout.write('no document types are registered\n');
    return 0;
  }
  const rows = documentTypes.map((t) => [
    t.id,
    t.versions.map((v) => v.version).join(', '),
    t.versions[0]?.dialect ?? '',
    t.title,
  ]);
  const header = ['TYPE', 'VERSIONS', 'DIALECT', 'TITLE'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const r of [header, ...rows]) {
    io.stdout.write(`${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')}\n`);
  }
  return 0;
}

function show(io: CliIO, spec: string): number {
  const at = spec.lastIndexOf('@');
  const id = at > 0 ? spec.slice(0, at) : spec;
  const wanted = at > 0 ? spec.slice(at + 1) : undefined;
  const type = findType(id);
  if (!type) {
    throw new UsageError(
      'usage.unknown-type',
      `unknown document type "${id}"; known types: ${documentTypes.map((t) => t.id).join(', ') || '(none registered)'}`,
    );
  }
  const version = wanted === undefined ? type.versions[type.versions.length - 1] : findVersion(type, wanted);
  if (!version) {
    throw new UsageError(
      'usage.unknown-version',
      `${type.id} has no version "${wanted ?? ''}"; known versions: ${type.versions.map((v) => v.version).join(', ')}`,
    );
  }
  io.stdout.write(renderSchema(version));
  return 0;
}

export const schemaCommand: CommandModule = {
  register(program, io, run) {
    const schema = program
      .command('schema')
      .summary('list document types and print their JSON Schemas')
      .description(
        'The JSON Schemas evalkit validates against (the same files as schemas/<type>/<version>.schema.json).',
      );
    schema
      .command('list')
      .description('list every document type with its versions and JSON Schema dialect')
      .addOption(
        new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'),
      )
      .action((flags: { format: 'text' | 'json' }) => run(async () => list(io, flags.format)));
    schema
      .command('show')
      .description(
        'print the JSON Schema of TYPE (newest version unless @VERSION is given), e.g. eee.aggregate@0.3.0',
      )
      .argument('<type[@version]>', 'document type id, optionally with @version')
      .action((spec: string) => run(async () => show(io, spec)));
  },
};
