/**
 * Keeping secrets out of everything that is written or printed. A redactor knows the secret values (an API key or
 * access token, a password in a base URL) and replaces them, the user-info of any URL and API-key-shaped tokens,
 * wherever text from a server enters (responses, error messages) and in URLs before they are logged or recorded.
 */

export const REDACTED = '[redacted]';

/** Secrets shorter than this are not searched for (a placeholder key such as "none" is no secret). */
const MIN_SECRET_LENGTH = 6;

/** `scheme://user:password@host` or `scheme://token@host`: the user-info part of any URL in a text. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@?#]+@/gi;

/** The shapes of common API keys, redacted even when the key value itself is not known. */
const KEY_SHAPES = /\b(?:sk|rk|pk)-(?:[a-z]+-)?[A-Za-z0-9_-]{16,}/g;

export interface Redactor {
  /** The text with every known secret, URL credential and API-key-shaped token replaced by [redacted]. */
  text(value: string): string;
  /** A URL with its user-info replaced (http://[redacted]@host/…); other URLs unchanged. */
  url(value: string): string;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The user name and password of a URL (decoded and as written), to be redacted wherever they appear. */
export function urlSecrets(url: string | undefined): string[] {
  if (url === undefined || !URL.canParse(url)) return [];
  const parsed = new URL(url);
  const out: string[] = [];
  for (const raw of [parsed.username, parsed.password]) {
    if (raw === '') continue;
    out.push(raw);
    try {
      out.push(decodeURIComponent(raw));
    } catch {
      // a malformed escape: the raw form is enough
    }
  }
  return out;
}

/** The shortest encoded form searched for: shorter runs of base64 letters occur by chance. */
const MIN_ENCODED_LENGTH = 8;

/**
 * The forms a server may echo a secret in besides as written: URL-encoded (upper- and lower-case escapes, `+` for a
 * space), and base64 / base64url at each of the three alignments it can take inside a longer encoded text (only the
 * characters that depend on the secret's bytes alone, e.g. of `Basic base64(user:token)` or of a whole header).
 */
export function encodedForms(secret: string): string[] {
  const out = new Set<string>();
  const url = encodeURIComponent(secret);
  if (url !== secret) {
    out.add(url);
    out.add(url.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()));
    out.add(url.replace(/%20/g, '+'));
  }
  const bytes = Buffer.from(secret, 'utf8');
  for (let pad = 0; pad < 3; pad++) {
    const encoded = Buffer.concat([Buffer.alloc(pad), bytes]).toString('base64');
    const start = Math.ceil((8 * pad) / 6);
    const end = Math.floor((8 * (pad + bytes.length)) / 6);
    const stable = encoded.slice(start, end);
    if (stable.length < MIN_ENCODED_LENGTH) continue;
    out.add(stable);
    out.add(stable.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  out.delete(secret);
  return [...out];
}

export function createRedactor(secrets: readonly (string | undefined)[] = []): Redactor {
  const plain = secrets.filter((s): s is string => s !== undefined && s.length >= MIN_SECRET_LENGTH);
  const known = [...new Set([...plain, ...plain.flatMap(encodedForms)])]
    // the longest first, so that a secret containing another is replaced whole
    .sort((a, b) => b.length - a.length);
  const secretPattern = known.length > 0 ? new RegExp(known.map(escapeRegExp).join('|'), 'g') : undefined;
  // Every completion passes here: each pattern runs only when the text holds its telltale substring.
  const text = (value: string): string => {
    let out = value;
    if (out.includes('@')) out = out.replace(URL_USERINFO, `$1${REDACTED}@`);
    if (out.includes('k-')) out = out.replace(KEY_SHAPES, REDACTED);
    if (secretPattern !== undefined && known.some((k) => out.includes(k)))
      out = out.replace(secretPattern, REDACTED);
    return out;
  };
  return { text, url: text };
}

/** Redacts URL credentials only (no key known): for URLs recorded by code that never saw the key. */
export const redactUrl = (url: string): string => createRedactor(urlSecrets(url)).url(url);
