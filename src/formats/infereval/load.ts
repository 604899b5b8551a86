// Reading an infereval benchmark or evaluation for use (metrics, runs, hashing): parse, apply the reference
// loader's bare-string reference shorthand, validate (schema, then cross-field rules), normalise.
import { readFile } from 'node:fs/promises';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { DataError, IoError } from '../../errors.js';
import { createAjv } from '../../validate/ajv.js';
import type { CrossFieldRule, RuleIssue } from '../types.js';
import { BenchmarkSchema } from './benchmark-schema.js';
import { EvaluationSchema } from './evaluation-schema.js';
import { normaliseBenchmark, normaliseEvaluation, promoteReferenceShorthand } from './normalise.js';
import { benchmarkRules, evaluationRules } from './rules.js';
import type { Benchmark, Evaluation } from './types.js';

export type InferevalKind = 'benchmark' | 'evaluation';

const validators = new Map<InferevalKind, ValidateFunction>();

function validatorFor(kind: InferevalKind): ValidateFunction {
  let v = validators.get(kind);
  if (!v) {
    v = createAjv('2020-12').compile(kind === 'benchmark' ? BenchmarkSchema : EvaluationSchema);
    validators.set(kind, v);
  }
  return v;
}

function schemaIssue(e: ErrorObject): RuleIssue {
  const params = e.params as Record<string, unknown>;
  let message = e.message ?? 'is invalid';
  if (e.keyword === 'additionalProperties')
    message = `unknown property ${JSON.stringify(params.additionalProperty)}`;
  else if (e.keyword === 'required')
    message = `missing required property ${JSON.stringify(params.missingProperty)}`;
  else if (e.keyword === 'enum')
    message = `must be one of ${(params.allowedValues as unknown[]).map((x) => JSON.stringify(x)).join(', ')}`;
  else if (e.keyword === 'const') message = `must be ${JSON.stringify(params.allowedValue)}`;
  return { pointer: e.instancePath, code: `schema.${e.keyword}`, message };
}

/**
 * Schema errors, or (when the schema passed) the cross-field rule findings, of one infereval document. Warnings
 * carry `severity: "warning"`; everything else is an error.
 */
export function checkInfereval(doc: unknown, kind: InferevalKind): RuleIssue[] {
  const validate = validatorFor(kind);
  if (!validate(doc)) return (validate.errors ?? []).map(schemaIssue);
  const rules: CrossFieldRule[] = kind === 'benchmark' ? benchmarkRules : evaluationRules;
  return rules.flatMap((rule) => rule.check(doc));
}

const isError = (i: RuleIssue): boolean => (i.severity ?? 'error') === 'error';

/** Validate an already parsed document and normalise it; throws DataError naming the first problems. */
export function parseInfereval(raw: unknown, kind: 'benchmark', source?: string): Benchmark;
export function parseInfereval(raw: unknown, kind: 'evaluation', source?: string): Evaluation;
export function parseInfereval(raw: unknown, kind: InferevalKind, source?: string): Benchmark | Evaluation;
export function parseInfereval(
  raw: unknown,
  kind: InferevalKind,
  source = '<input>',
): Benchmark | Evaluation {
  const doc = promoteReferenceShorthand(raw);
  const errors = checkInfereval(doc, kind).filter(isError);
  if (errors.length > 0) {
    const shown = errors.slice(0, 5).map((i) => `  ${i.pointer || '/'} ${i.code}: ${i.message}`);
    const more = errors.length > shown.length ? `\n  … and ${errors.length - shown.length} more` : '';
    throw new DataError(
      errors[0].code,
      `${source}: not a valid infereval ${kind} 1.0 (${errors.length} problem${errors.length === 1 ? '' : 's'}):\n${shown.join('\n')}${more}`,
    );
  }
  return kind === 'benchmark' ? normaliseBenchmark(doc) : normaliseEvaluation(doc);
}

/** Read, validate (schema and cross-field rules) and normalise an infereval file. */
export async function loadInfereval(path: string, kind: 'benchmark'): Promise<Benchmark>;
export async function loadInfereval(path: string, kind: 'evaluation'): Promise<Evaluation>;
export async function loadInfereval(path: string, kind: InferevalKind): Promise<Benchmark | Evaluation>;
export async function loadInfereval(path: string, kind: InferevalKind): Promise<Benchmark | Evaluation> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new IoError('io.read', `cannot read infereval ${kind} ${path}: ${reason}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    throw new DataError('json.syntax', `${path}: not valid JSON: ${(err as Error).message}`);
  }
  return parseInfereval(raw, kind, path);
}
