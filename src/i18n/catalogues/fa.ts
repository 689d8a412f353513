import { type Catalogue, en } from './en.ts';

// TODO translate
export const fa: Catalogue = { ...en };
