import { type FindingsCatalogue, findingsEn } from './findings-en.ts';

// TODO translate
export const findingsRu: FindingsCatalogue = { ...findingsEn };
