import type { DocumentType } from '../types.js';
import { TaskSchema } from './task.js';

export * from './task.js';

/** evalkit's own documents: the task file of `evalkit run`. */
export const evalkitTaskType: DocumentType = {
  id: 'evalkit.task',
  family: 'evalkit',
  title: 'evalkit task (evalkit run): dataset, prompt, scorers, epochs, reducer',
  looksLike: (doc) => 'dataset' in doc && 'scorers' in doc,
  versions: [{ version: '1.0', dialect: '2020-12', schema: TaskSchema, schemaVersionValues: [] }],
};

export const evalkitTypes: DocumentType[] = [evalkitTaskType];
