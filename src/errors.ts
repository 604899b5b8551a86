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
 * The run was stopped by a signal (Ctrl-C: SIGINT, SIGTERM). Its message is the whole line the user sees
 * ("interrupted: …"); the exit code is the shell's for the signal (128 + its number: 130, 143).
 */
export class InterruptedError extends EvalkitError {
  constructor(
    readonly signal: 'SIGINT' | 'SIGTERM',
    message: string,
  ) {
    super('run.interrupted', message);
  }
  get exitCode(): number {
    return this.signal === 'SIGINT' ? 130 : 143;
  }
}

/**
 * The line an error is printed as (after `evalkit: `): `error CODE: message`, or the message alone when it already
 * names its code as a diagnostic line does (`file:1:2 error CODE text`), so that the code is said once.
 */
export function errorLine(code: string, message: string): string {
  const escaped = code.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|\\s)error ${escaped}(\\s|:|$)`).test(message) ? message : `error ${code}: ${message}`;
}
