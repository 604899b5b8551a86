import type { DocumentType } from '../types.js';

/** The eee document types, each with every version. */
export const eeeTypes: DocumentType[] = [];
