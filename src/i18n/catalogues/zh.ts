import { type Catalogue, en } from './en.ts';

// TODO translate
export const zh: Catalogue = { ...en };
