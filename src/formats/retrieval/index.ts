import type { DocumentType } from '../types.js';

/** The retrieval document types, each with every version. */
export const retrievalTypes: DocumentType[] = [];
