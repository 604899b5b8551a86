/**
 * Errors the library throws. Each has a stable `code`; the CLI maps the class to an exit code in one place
 * (cli/main.ts). The library never prints and never exits.
 */
export class EvalkitError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/** The caller asked for something that cannot be done as asked (bad flag, unknown type). Exit 2. */
export class UsageError extends EvalkitError {}

/** A file could not be read or written. Exit 2. */
export class IoError extends EvalkitError {}

/** The data is invalid or a check failed. Exit 1. */
export class DataError extends EvalkitError {}

/**
 * A message as printed after its code (`error CODE: message`): a message that already names its own code (one
 * written as a diagnostic line, `file:1:2 error CODE text`) says it once, not twice.
 */
export function messageWithoutCode(code: string, message: string): string {
  const escaped = code.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return message
    .replace(new RegExp(`^${escaped}:\\s*`), '')
    .replace(new RegExp(`(^|\\s)(?:error|warning) ${escaped}(?::|\\s|$)\\s*`, 'g'), '$1')
    .trim();
}
