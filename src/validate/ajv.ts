import type { Ajv, Options } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { createRequire } from 'node:module';
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

/**
 * Ajv itself is required on the first call: the registered types validate with the precompiled code (compiled/),
 * which needs none of it, so `validate` starts without loading Ajv and its meta-schemas (CommonJS, hence require).
 */
export function createAjv(dialect: Dialect, options: Options = {}): Ajv {
  const opts = { ...ajvOptions, ...options };
  const require = createRequire(import.meta.url);
  if (dialect === 'draft-07') return new (require('ajv') as typeof import('ajv')).Ajv(opts);
  const { Ajv2020: Ajv2020Class } = require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 };
  return new Ajv2020Class(opts) as unknown as Ajv;
}
