/**
 * Canonical JSON compatible with Python's `json.dumps(value, sort_keys=True, separators=(",", ":"))` with its
 * default `ensure_ascii=True`: keys sorted by code point at every level, no spaces, every non-ASCII character
 * escaped as lowercase `\uXXXX` (UTF-16 surrogate pairs above the BMP), and Python's number formatting.
 *
 * JavaScript has one number type; Python tells ints from floats. A number is printed as a Python float when
 * `isFloat(pointer)` says so (pointer = RFC 6901 path of the value), or when it is not an integer.
 */
export interface CanonicalOptions {
  isFloat?: (pointer: string) => boolean;
}

/** Python's `repr(float)`: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, expText] = x.toExponential().split('e');
  const exp = Number(expText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  let out: string;
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    out = `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  } else if (exp < 0) {
    out = `0.${'0'.repeat(-exp - 1)}${digits}`;
  } else if (digits.length <= exp + 1) {
    out = `${digits}${'0'.repeat(exp + 1 - digits.length)}.0`;
  } else {
    out = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  }
  return negative ? `-${out}` : out;
}

const ABOVE_TILDE = /[\u007f-\uffff]/g;
const escapeUnit = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * A JSON string literal as Python writes it with ensure_ascii=True. JSON.stringify already escapes quotes,
 * backslashes and control characters exactly as Python does (\n, \u001f, a lone surrogate as \udXXX), so only the
 * UTF-16 units above U+007E remain to be escaped, one at a time. `json`: JSON.stringify(s), when already known.
 */
export function pythonJsonString(s: string, json = JSON.stringify(s)): string {
  // Nothing above U+007E when the UTF-8 length equals the UTF-16 length (all below U+0080) and there is no DEL:
  // two native scans, about ten times faster than the regex on the long prompts a converter hashes. Otherwise there
  // is something to escape, and one replace pass does it (testing first would scan the text twice).
  if (Buffer.byteLength(json) === json.length && json.indexOf('\x7f') === -1) return json;
  return json.replace(ABOVE_TILDE, escapeUnit);
}

function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Code-point order (Python sorts str keys by code point; JS sort compares UTF-16 units). */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const d = (x.value.codePointAt(0) as number) - (y.value.codePointAt(0) as number);
    if (d !== 0) return d;
  }
}

export function canonicalJson(value: unknown, options: CanonicalOptions = {}): string {
  const parts: string[] = [];
  const write = (v: unknown, pointer: string): void => {
    if (v === null || v === undefined) parts.push('null');
    else if (typeof v === 'boolean') parts.push(v ? 'true' : 'false');
    else if (typeof v === 'number') {
      const asFloat = !Number.isInteger(v) || (options.isFloat?.(pointer) ?? false);
      parts.push(asFloat ? pythonFloatRepr(v) : String(v));
    } else if (typeof v === 'string') parts.push(pythonJsonString(v));
    else if (Array.isArray(v)) {
      parts.push('[');
      v.forEach((item, i) => {
        if (i > 0) parts.push(',');
        write(item, `${pointer}/${i}`);
      });
      parts.push(']');
    } else if (typeof v === 'object') {
      const keys = Object.keys(v as object)
        .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
        .sort(compareCodePoints);
      parts.push('{');
      keys.forEach((k, i) => {
        if (i > 0) parts.push(',');
        parts.push(pythonJsonString(k), ':');
        write((v as Record<string, unknown>)[k], `${pointer}/${escapePointerToken(k)}`);
      });
      parts.push('}');
    } else throw new TypeError(`cannot write ${typeof v} as JSON`);
  };
  write(value, '');
  return parts.join('');
}
