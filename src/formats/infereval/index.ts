import type { DocumentType } from '../types.js';

/** The infereval document types, each with every version. */
export const inferevalTypes: DocumentType[] = [];
