import { type FindingsCatalogue, findingsEn } from './findings-en.ts';

// TODO translate
export const findingsEs: FindingsCatalogue = { ...findingsEn };
