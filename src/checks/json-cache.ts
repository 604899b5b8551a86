/** Each .json file read and parsed once per `runTreeChecks` call, however many checks look at it. */
import { readRegularFile } from '../io/regular-file.js';
import { parseStrictJson } from '../io/strict-json.js';

export interface ParsedJson {
  /** True when the text is JSON (possibly with non-fatal issues such as a duplicate key). */
  ok: boolean;
  value: unknown;
  text: string;
}

export class JsonCache {
  private readonly entries = new Map<string, Promise<ParsedJson | undefined>>();

  /** The parsed file, or undefined when it cannot be read. Never throws. */
  get(path: string): Promise<ParsedJson | undefined> {
    let entry = this.entries.get(path);
    if (!entry) {
      entry = readRegularFile(path).then(
        (bytes) => {
          const parsed = parseStrictJson(bytes);
          return { ok: parsed.ok, value: parsed.value, text: parsed.text };
        },
        () => undefined,
      );
      this.entries.set(path, entry);
    }
    return entry;
  }
}
