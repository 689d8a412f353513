import { type Catalogue, en } from './en.ts';

// TODO translate
export const ru: Catalogue = { ...en };
