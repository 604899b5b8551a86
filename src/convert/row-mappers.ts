/**
 * The row mappers a conversion worker can run (convert-worker.ts), by source: each builds, from the plain context a
 * source put in its RowJob, the function that turns a parsed JSONL line into the row's JSONL text.
 */
import type { LineMapper, RowJob } from './row-blocks.js';
import { lmEvalLineMapper, type LmEvalRowContext } from './sources/lm-eval.js';

export function lineMapperFor(job: RowJob): LineMapper {
  switch (job.source) {
    case 'lm-eval':
      return lmEvalLineMapper(job.context as LmEvalRowContext);
  }
}
