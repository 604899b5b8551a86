/**
 * `stats --in-place`: puts what `addUncertainty` computed into the aggregate's own text instead of re-serialising
 * the record, so that a Python-written `1.0` stays `1.0`, `1e-05` stays `1e-05`, and indentation, key order,
 * newlines and the trailing newline stay as they were. Only `score_details.uncertainty` and the keys written into
 * `score_details.details` change; an update that would touch anything else is refused before anything is written.
 */
import { isDeepStrictEqual } from 'node:util';
import { DataError, IoError } from '../../errors.js';
import { spliceJson, type TextEdit } from '../../io/json-splice.js';

/** What the statistics may write: a result's score_details (when missing), its uncertainty and details. */
const WRITABLE = /^\/evaluation_results\/\d+\/score_details(?:\/(?:uncertainty|details)(?:\/.*)?)?$/;

export interface UncertaintySplice {
  /** The new text of the file. */
  text: string;
  /** False when the file already holds exactly these values (the text is then unchanged). */
  changed: boolean;
  edits: TextEdit[];
}

/**
 * The text of an aggregate with the uncertainty of `updated` (the record `addUncertainty` returned) spliced into
 * `text`, the file's current content; `original` is the record the statistics were computed from.
 */
export function spliceUncertainty(
  text: string,
  original: unknown,
  updated: unknown,
  file = 'aggregate',
): UncertaintySplice {
  let current: unknown;
  try {
    current = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    current = undefined;
  }
  if (!isDeepStrictEqual(current, original)) {
    throw new IoError(
      'eee.stats.file-changed',
      `${file} changed while its statistics were computed; nothing was written (run again)`,
    );
  }
  let result;
  try {
    result = spliceJson(text, updated);
  } catch (error) {
    throw new DataError(
      'eee.stats.in-place',
      `cannot update ${file} in place: ${(error as Error).message}; nothing was written (use -o FILE)`,
    );
  }
  const outside = result.edits.flatMap((e) => e.pointers).find((p) => !WRITABLE.test(p));
  if (outside !== undefined) {
    throw new DataError(
      'eee.stats.in-place',
      `cannot update ${file} in place: the update would change ${outside || '/'}, outside score_details; nothing was written`,
    );
  }
  return { text: result.text, changed: result.edits.length > 0, edits: result.edits };
}
