/**
 * Unicode's bidirectional formatting characters: embeddings and overrides (U+202A–U+202E), isolates
 * (U+2066–U+2069) and the marks (U+200E, U+200F, U+061C). From a record they can make a text read other than it is
 * stored (`rtl` U+202E `gnp.exe` shows as "rtlexe.png"), so evalkit shows them as visible escapes (`\u202e`) in the
 * terminal and in the viewer. Defined once here; no Node and no DOM (compiled into the app too).
 */
export const BIDI_CONTROL_CLASS = '\\u202a-\\u202e\\u2066-\\u2069\\u200e\\u200f\\u061c';

const BIDI_CONTROLS = new RegExp(`[${BIDI_CONTROL_CLASS}]`, 'g');
const ANY_BIDI_CONTROL = new RegExp(`[${BIDI_CONTROL_CLASS}]`);

/** The visible form of one character: `\u` and its four lower-case hex digits. */
export const visibleEscape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `text` with every bidirectional control shown as its escape. */
export function showBidiControls(text: string): string {
  return ANY_BIDI_CONTROL.test(text) ? text.replace(BIDI_CONTROLS, visibleEscape) : text;
}
