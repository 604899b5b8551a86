/**
 * The converter sources, as data: adding a tool means one file under `sources/` and one line in `SOURCES`.
 * `detectSource` builds a cheap Probe (the first 64 KiB of a file, or a folder's entry names) and asks each source
 * in order; the first that claims the path converts it.
 */
import { readdir, stat } from 'node:fs/promises';
import { openRegularFile } from '../io/regular-file.js';
import { DataError, IoError, UsageError } from '../errors.js';
import { benchOutputSource } from './sources/bench-output.js';
import { helmSource } from './sources/helm.js';
import { hfEvalResultsSource } from './sources/hf-eval-results.js';
import { inferevalSource } from './sources/infereval.js';
import { inspectSource } from './sources/inspect.js';
import { lmEvalSource } from './sources/lm-eval.js';
import { lightevalSource } from './sources/lighteval.js';
import { alpacaEvalSource } from './sources/alpaca-eval.js';
import { openaiEvalsSource } from './sources/openai-evals.js';
import { openaiEvalsApiSource } from './sources/openai-evals-api.js';
import { promptfooSource } from './sources/promptfoo.js';
import type { Probe, SourceConverter, SourceId } from './types.js';

/** Every source, most specific first (the first whose `detect` claims a path wins). */
export const SOURCES: SourceConverter[] = [
  lmEvalSource,
  lightevalSource,
  inspectSource,
  helmSource,
  promptfooSource,
  openaiEvalsSource,
  openaiEvalsApiSource,
  benchOutputSource,
  inferevalSource,
  alpacaEvalSource,
  hfEvalResultsSource,
];

export const PROBE_BYTES = 64 * 1024;

/** The source with this id, or a UsageError listing the known ones. */
export function sourceById(id: string): SourceConverter {
  const found = SOURCES.find((s) => s.id === id);
  if (!found)
    throw new UsageError(
      'usage.bad-option',
      `unknown source "${id}"; expected auto or one of ${SOURCES.map((s) => s.id).join(', ')}`,
    );
  return found;
}

/** The first 64 KiB of a file (latin1 when it holds NUL bytes, i.e. is binary), or a folder's entry names. */
export async function probePath(path: string): Promise<Probe> {
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    throw new IoError('io.not-found', `cannot read ${path}: ${(error as Error).message}`);
  }
  if (info.isDirectory()) {
    const entries = (await readdir(path)).sort();
    return { path, isDirectory: true, entries };
  }
  const handle = await openRegularFile(path); // a FIFO or device is refused, never waited on
  try {
    const buf = Buffer.alloc(Math.min(PROBE_BYTES, info.size));
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const head = buf.subarray(0, bytesRead);
    const binary = head.includes(0);
    return { path, isDirectory: false, head: head.toString(binary ? 'latin1' : 'utf8') };
  } finally {
    await handle.close();
  }
}

/** Which sources convert: all of them for `auto`, else the one named. */
export function sourcesFor(from: SourceId | 'auto' = 'auto'): SourceConverter[] {
  return from === 'auto' ? SOURCES : [sourceById(from)];
}

/** The source that claims a probe, or undefined. */
export function claimingSource(
  probe: Probe,
  sources: SourceConverter[] = SOURCES,
): SourceConverter | undefined {
  for (const s of sources) {
    try {
      if (s.detect(probe)) return s;
    } catch {
      // detect must not throw; a source that does is simply not claiming.
    }
  }
  return undefined;
}

/** What every source expects, for the "unrecognised" error. */
export function expectedSources(sources: SourceConverter[] = SOURCES): string {
  return sources.map((s) => `${s.id} (${s.description})`).join('; ');
}

/** The source of a file or folder, recognised from its content and names; a DataError says what was expected. */
export async function detectSource(
  path: string,
  sources: SourceConverter[] = SOURCES,
): Promise<SourceConverter> {
  const probe = await probePath(path);
  const found = claimingSource(probe, sources);
  if (!found)
    throw new DataError(
      'convert.unrecognised',
      `${path}: not a recognised ${probe.isDirectory ? 'output folder' : 'output file'}; expected one of: ${expectedSources(sources)}`,
    );
  return found;
}
