import type { DocumentType } from '../types.js';

/** The bench-output document types, each with every version. */
export const benchOutputTypes: DocumentType[] = [];
