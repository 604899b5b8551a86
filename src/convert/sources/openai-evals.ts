import { DataError } from '../../errors.js';
import type { SourceConverter } from '../types.js';

export const openaiEvalsSource: SourceConverter = {
  id: 'openai-evals',
  description: 'openai-evals (in progress)',
  detect: () => false,
  // eslint-disable-next-line require-yield
  async *convert(path) {
    throw new DataError('convert.unsupported', `${path}: the openai-evals source is not written yet`);
  },
};
