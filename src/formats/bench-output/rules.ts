// Cross-field rules of a benchmark output v1 document.
import type { CrossFieldRule } from '../types.js';
import type { BenchOutput } from './schema.js';

export const errorNeedsMessage: CrossFieldRule = {
  code: 'bench.error-needs-message',
  description:
    'A run whose results.status is "error" says why in results.error.message (a non-empty string).',
  check(doc) {
    const results = (doc as BenchOutput).results;
    if (results.status !== 'error') return [];
    const message = results.error?.message;
    if (typeof message === 'string' && message.trim() !== '') return [];
    return [
      {
        pointer: results.error ? '/results/error/message' : '/results',
        code: 'bench.error-needs-message',
        message: results.error
          ? 'results.status is "error" but results.error.message is empty'
          : 'results.status is "error" but there is no results.error with a message saying what failed',
      },
    ];
  },
};

export const benchOutputRules: CrossFieldRule[] = [errorNeedsMessage];
