/**
 * "This is an X; this command takes a Y": what a document given to a command is, by the same detection as
 * `evalkit validate`, and the one refusal every command gives when it is not the kind the command reads.
 */
import { article } from '../io/article.js';
import { DataError } from '../errors.js';
import { parseStrictJson } from '../io/strict-json.js';
import { Detector } from './detect.js';

let detector: Detector | undefined;

/** A document type by id, as a phrase with its article ("an infereval evaluation (η)"). */
export function describeType(typeId: string): string {
  detector ??= new Detector();
  const type = detector.findType(typeId);
  return article(type?.title ?? typeId);
}

/**
 * What a parsed document is, as a phrase ("an Every Eval Ever aggregate record (eee.aggregate 0.3.0)"), or
 * undefined when no known type claims it (then the command's own validation says what is wrong).
 */
export function describeDocument(
  doc: unknown,
): { typeId?: string; supported: boolean; phrase: string } | undefined {
  if (Array.isArray(doc)) return { supported: false, phrase: 'a JSON array' };
  if (typeof doc !== 'object' || doc === null) return undefined;
  detector ??= new Detector();
  const found = detector.detect(doc);
  if (found.ok)
    return {
      typeId: found.type.id,
      supported: true,
      phrase: `${article(found.type.title)} (${found.type.id} ${found.version.version})`,
    };
  if (found.code === 'detect.unknown-version' && found.type !== undefined) {
    const declared = (doc as Record<string, unknown>).schema_version;
    return {
      typeId: found.type.id,
      supported: false,
      phrase:
        `${article(found.type.title)} of a version evalkit does not read` +
        (declared === undefined ? ' (no schema_version)' : ` (schema_version ${JSON.stringify(declared)})`),
    };
  }
  if (found.message.startsWith('not a current document type:'))
    return {
      supported: false,
      phrase: found.message.replace('not a current document type: ', 'a legacy document: '),
    };
  return undefined;
}

/** The first line of a text when it is a whole JSON value on its own (the text is JSON Lines). */
function firstJsonlRow(text: string): unknown {
  const nl = text.indexOf('\n');
  if (nl < 0 || text.slice(nl + 1).trim() === '') return undefined;
  const first = parseStrictJson(text.slice(0, nl).replace(/\r$/, ''));
  return first.ok ? first.value : undefined;
}

/**
 * Throws `input.wrong-kind` when `doc` (parsed from `source`) is confidently another kind of document than the
 * `wanted` type ids (a wanted type of a version evalkit does not read passes: the command's validation says so). `text`, when the document did not parse, lets JSON Lines be recognised by its first row.
 */
export function expectKind(
  doc: unknown,
  wanted: readonly string[],
  source: string,
  takes: string = wanted.map(describeType).join(' or '),
  text?: string,
): void {
  if (doc === undefined && text !== undefined) {
    const row = firstJsonlRow(text);
    if (row === undefined) return;
    const what = describeDocument(row);
    if (what?.typeId !== undefined && wanted.includes(what.typeId)) return;
    throw new DataError(
      'input.wrong-kind',
      `${source}: this is JSON Lines${what ? ` (rows: ${what.phrase})` : ''}; this command takes ${takes}`,
    );
  }
  const what = describeDocument(doc);
  if (what === undefined || (what.typeId !== undefined && wanted.includes(what.typeId))) return;
  throw new DataError('input.wrong-kind', `${source}: this is ${what.phrase}; this command takes ${takes}`);
}
