/**
 * A small deterministic YAML writer for the shapes `.eval_results` files and `model-index` blocks have: block
 * sequences of block mappings whose values are strings, finite numbers, booleans, nested mappings and sequences.
 * Keys are written in the order given; every string is double-quoted with JSON's escapes (which YAML 1.2 reads the
 * same), so no string is ever read back as a number, a boolean, a date or null; numbers are JavaScript's shortest
 * round-trip form, which YAML 1.2's core schema reads back as the same number.
 */

export type YamlValue = string | number | boolean | YamlMap | YamlValue[];
export interface YamlMap {
  [key: string]: YamlValue | undefined;
}

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

function scalar(v: string | number | boolean): string {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new RangeError(`yaml: ${v} is not a finite number`);
    return Object.is(v, -0) ? '0' : String(v);
  }
  return typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}

const key = (k: string): string => (PLAIN_KEY.test(k) ? k : JSON.stringify(k));

function lines(value: YamlValue, indent: string, out: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) {
      if (isMap(item) || Array.isArray(item)) {
        const sub: string[] = [];
        lines(item, `${indent}  `, sub);
        // The first line of the item goes after the dash.
        out.push(`${indent}- ${sub[0]!.slice(indent.length + 2)}`, ...sub.slice(1));
      } else out.push(`${indent}- ${scalar(item)}`);
    }
    return;
  }
  if (isMap(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      if ((isMap(v) && Object.values(v).some((x) => x !== undefined)) || (Array.isArray(v) && v.length > 0)) {
        out.push(`${indent}${key(k)}:`);
        lines(v, Array.isArray(v) ? indent : `${indent}  `, out);
      } else if (isMap(v)) out.push(`${indent}${key(k)}: {}`);
      else if (Array.isArray(v)) out.push(`${indent}${key(k)}: []`);
      else out.push(`${indent}${key(k)}: ${scalar(v)}`);
    }
    return;
  }
  out.push(`${indent}${scalar(value)}`);
}

function isMap(v: unknown): v is YamlMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The YAML text of a value, ending in a newline. */
export function toYaml(value: YamlValue): string {
  const out: string[] = [];
  lines(value, '', out);
  return `${out.join('\n')}\n`;
}
