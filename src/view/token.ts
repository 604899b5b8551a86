/** The viewer's access token, checked once wherever it comes from (`--token`, `startViewServer`). */
import { UsageError } from '../errors.js';

/** A token must be at least 8 characters with no white space or control characters (it travels in a URL). */
export function checkToken(token: string): void {
  if (token.length < 8 || /[\s\u0000-\u001f\u007f-\u009f]/.test(token)) {
    throw new UsageError(
      'usage.bad-option',
      '--token must be at least 8 characters, without spaces or control characters',
    );
  }
}
