/**
 * Nothing a record holds can drive the terminal: every control character (bidirectional controls included) and
 * escape sequence in what the CLI prints (ids, tags, file names, messages quoting values) is shown as a visible `\u001b`-style escape, except
 * newlines (LF and CRLF) and tabs and the sequences the CLI itself uses — colours when colours are on, and the carriage return
 * and erase-line of a progress redraw on an interactive terminal. Applied once, to the CLI's output streams, so
 * every command (and every future one) is covered.
 *
 * Inside JSON strings the visible form `\u00XX` is the same JSON value, so `--format json` output stays valid
 * and equal.
 */

import { BIDI_CONTROL_CLASS, visibleEscape } from '../../view/shared/bidi.js';

export interface TerminalAllowance {
  /** Colour/weight SGR sequences (ESC [ … m) pass. */
  colour: boolean;
  /** Carriage return and erase-line (ESC [ K) pass: progress redraws. */
  redraw: boolean;
}

/**
 * Any C0 control but tab, newline and the CR of a CRLF line end (CSV), DEL, a C1 control, or a bidirectional
 * control (an override in an id would make it read other than it is: see view/shared/bidi.ts).
 */
const CONTROLS = `\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f${BIDI_CONTROL_CLASS}`;
const CONTROL = new RegExp(`[${CONTROLS}]|\\r(?!\\n)`);

/** A CSI sequence (ESC [ params final), or any other control character. */
const TOKEN = new RegExp(`\\u001b\\[([0-9;]*)([A-Za-z])|[${CONTROLS}]|\\r(?!\\n)`, 'g');

/** SGR parameters that only change colour or weight (no conceal, no blink). */
const SAFE_SGR = new Set([
  0, 1, 2, 3, 4, 7, 9, 21, 22, 23, 24, 27, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45,
  46, 47, 48, 49, 90, 91, 92, 93, 94, 95, 96, 97, 100, 101, 102, 103, 104, 105, 106, 107,
]);

const visible = visibleEscape;

/** `text` with every control character neutralised except what `allow` lets through. */
export function neutraliseControls(
  text: string,
  allow: TerminalAllowance = { colour: false, redraw: false },
): string {
  if (!CONTROL.test(text)) return text;
  return text.replace(TOKEN, (match: string, params: string | undefined, final: string | undefined) => {
    if (final !== undefined) {
      if (
        allow.colour &&
        final === 'm' &&
        params!.split(';').every((p) => p === '' || SAFE_SGR.has(Number(p)))
      )
        return match;
      if (allow.redraw && final === 'K' && params === '') return match;
      return visible('\u001b') + match.slice(1);
    }
    if (allow.redraw && match === '\r') return match;
    return visible(match);
  });
}

/**
 * The stream, with every string written through `neutraliseControls` (bytes pass as they are). Everything else
 * (isTTY, columns, events, a `write` replaced later on the stream itself) is the stream's own.
 */
export function terminalSafeStream<S extends NodeJS.WritableStream>(stream: S, allow: TerminalAllowance): S {
  const write = (chunk: unknown, ...rest: unknown[]): boolean =>
    (stream.write as (...args: unknown[]) => boolean)(
      typeof chunk === 'string' ? neutraliseControls(chunk, allow) : chunk,
      ...rest,
    );
  return new Proxy(stream, {
    get(target, property) {
      if (property === 'write') return write;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
