import { DataError } from '../../errors.js';
import type { SourceConverter } from '../types.js';

export const lmEvalSource: SourceConverter = {
  id: 'lm-eval',
  description: 'lm-eval (in progress)',
  detect: () => false,
  // eslint-disable-next-line require-yield
  async *convert(path) {
    throw new DataError('convert.unsupported', `${path}: the lm-eval source is not written yet`);
  },
};
