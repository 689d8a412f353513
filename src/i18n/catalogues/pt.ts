import { type Catalogue, en } from './en.ts';

// TODO translate
export const pt: Catalogue = { ...en };
