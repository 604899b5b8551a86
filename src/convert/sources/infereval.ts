import { DataError } from '../../errors.js';
import type { SourceConverter } from '../types.js';

export const inferevalSource: SourceConverter = {
  id: 'infereval',
  description: 'infereval (in progress)',
  detect: () => false,
  // eslint-disable-next-line require-yield
  async *convert(path) {
    throw new DataError('convert.unsupported', `${path}: the infereval source is not written yet`);
  },
};
