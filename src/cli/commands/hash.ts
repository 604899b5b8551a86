import { readError } from '../../io/file-kind.js';
import { readRegularFile } from '../../io/regular-file.js';
import { resolve } from 'node:path';
import { Option } from 'commander';
import { UsageError } from '../../errors.js';
import { BENCHMARK_FIELD_SET, benchmarkHash } from '../../formats/infereval/hash.js';
import { algorithmOfHash, matchingSampleHashRecipe, sampleHash } from '../../formats/eee/sample-hash.js';
import { parseStrictJson } from '../../io/strict-json.js';
import { describeDocument } from '../../validate/expect-kind.js';
import type { CommandModule } from '../context.js';
import { isObject } from '../../io/json-value.js';

interface RowHash {
  line: number;
  sample_id: unknown;
  sample_hash: string;
  stored?: string;
  matches?: boolean;
  /** The older recipe the stored hash was made with, when it is not canonical. */
  recipe?: string;
}

type FileHash =
  | { file: string; type: 'infereval.benchmark'; benchmark_hash: string; field_set: string }
  | { file: string; type: 'eee.instance'; rows: RowHash[] }
  | { file: string; type: 'error'; error: string };

/** What `hash` reads: a benchmark (its benchmark_hash) or EEE instance rows (their sample_hash). */
const HASHED = ['infereval.benchmark', 'eee.instance'];
const TAKES = 'an infereval benchmark (β) 1.0 or Every Eval Ever instance-level rows';

async function hashFile(path: string, cwd: string): Promise<FileHash> {
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(resolve(cwd, path), path);
  } catch (error) {
    throw readError(path, error);
  }
  const whole = parseStrictJson(bytes);
  const what = whole.ok ? describeDocument(whole.value) : undefined;
  if (what !== undefined && !(what.supported && HASHED.includes(what.typeId!)))
    return { file: path, type: 'error', error: `this is ${what.phrase}; this command takes ${TAKES}` };
  if (whole.ok && isObject(whole.value) && 'items' in whole.value && 'bearers' in whole.value)
    return {
      file: path,
      type: 'infereval.benchmark',
      benchmark_hash: benchmarkHash(whole.value),
      field_set: BENCHMARK_FIELD_SET,
    };
  // Otherwise: EEE instance rows, one per line (or one row as a whole .json document).
  const rows: RowHash[] = [];
  const lines =
    whole.ok && isObject(whole.value) && isObject(whole.value.input)
      ? [JSON.stringify(whole.value)]
      : bytes.toString('utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i].replace(/\r$/, '');
    if (text.trim() === '') continue;
    const parsed = parseStrictJson(text);
    if (!parsed.ok || !isObject(parsed.value) || !isObject(parsed.value.input))
      return {
        file: path,
        type: 'error',
        error: `line ${i + 1} is neither an infereval benchmark nor an EEE instance row with an input`,
      };
    const row = parsed.value;
    const input = row.input as Record<string, unknown>;
    const stored = typeof row.sample_hash === 'string' ? row.sample_hash : undefined;
    const canonical = sampleHash(input, stored ? algorithmOfHash(stored) : 'sha256');
    const entry: RowHash = { line: i + 1, sample_id: row.sample_id ?? null, sample_hash: canonical };
    if (stored !== undefined) {
      entry.stored = stored;
      entry.matches = stored.toLowerCase() === canonical;
      if (!entry.matches) {
        const recipe = matchingSampleHashRecipe(input, stored);
        if (recipe) entry.recipe = recipe.id;
      }
    }
    rows.push(entry);
  }
  if (rows.length === 0)
    return { file: path, type: 'error', error: 'the file holds no benchmark and no instance row' };
  return { file: path, type: 'eee.instance', rows };
}

export const hashCommand: CommandModule = {
  register(program, io, run) {
    program
      .command('hash')
      .summary('print canonical hashes: infereval benchmark_hash, EEE sample_hash')
      .description(
        [
          'Print the canonical hash of each FILE:',
          '  infereval benchmark: its benchmark_hash ("sha256:<hex>"), byte-compatible',
          `    with the reference implementation (field set ${BENCHMARK_FIELD_SET}: defaults`,
          '    filled in, nulls dropped);',
          '  EEE instance rows (.jsonl): the canonical sample_hash of every row; a',
          '    stored sample_hash that differs is flagged, naming the older recipe',
          '    that produced it when one does.',
          '',
          'Exit codes: 0 every stored hash is canonical, 1 some stored hash differs,',
          '2 unreadable or unknown input.',
        ].join('\n'),
      )
      .argument('<file...>', 'benchmark JSON files or EEE instance JSONL files')
      .addOption(
        new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'),
      )
      .action((files: string[], options: { format: 'text' | 'json' }) =>
        run(async () => {
          const results: FileHash[] = [];
          for (const file of files) results.push(await hashFile(file, io.cwd));
          const unknown = results.filter((r) => r.type === 'error');
          const differing = results.some(
            (r) => r.type === 'eee.instance' && r.rows.some((x) => x.matches === false),
          );
          if (options.format === 'json') io.stdout.write(`${JSON.stringify({ files: results }, null, 2)}\n`);
          else
            for (const r of results) {
              if (r.type === 'infereval.benchmark') io.stdout.write(`${r.benchmark_hash}  ${r.file}\n`);
              else if (r.type === 'eee.instance')
                for (const row of r.rows) {
                  const note =
                    row.matches === undefined
                      ? ''
                      : row.matches
                        ? '  stored: ok'
                        : `  stored: ${row.stored} differs${row.recipe ? ` (older recipe "${row.recipe}")` : ''}`;
                  io.stdout.write(
                    `${row.sample_hash}  ${r.file}:${row.line} ${String(row.sample_id)}${note}\n`,
                  );
                }
              else io.stderr.write(`evalkit hash: ${r.file}: ${r.error}\n`);
            }
          if (unknown.length > 0) {
            if (options.format === 'json') return 2;
            throw new UsageError('hash.unknown-input', `${unknown.length} file(s) could not be hashed`);
          }
          return differing ? 1 : 0;
        }),
      );
  },
};
