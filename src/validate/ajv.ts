import { Ajv, type Options } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Dialect } from '../formats/types.js';

/**
 * The one place Ajv is configured. `format` is an annotation (as in the upstream validators), union types are
 * allowed (upstream EEE uses them), and unknown keywords such as EEE's top-level `version` are tolerated, so a
 * verdict here equals the verdict of any conforming validator of the same schema.
 */
export const ajvOptions: Options = {
  allErrors: true,
  strict: false,
  allowUnionTypes: true,
  validateFormats: false,
  verbose: false,
};

export function createAjv(dialect: Dialect, options: Options = {}): Ajv {
  const opts = { ...ajvOptions, ...options };
  return dialect === 'draft-07' ? new Ajv(opts) : (new Ajv2020(opts) as unknown as Ajv);
}
