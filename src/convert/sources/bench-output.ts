import { DataError } from '../../errors.js';
import type { SourceConverter } from '../types.js';

export const benchOutputSource: SourceConverter = {
  id: 'bench',
  description: 'bench (in progress)',
  detect: () => false,
  // eslint-disable-next-line require-yield
  async *convert(path) {
    throw new DataError('convert.unsupported', `${path}: the bench source is not written yet`);
  },
};
