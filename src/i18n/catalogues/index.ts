// Every catalogue by language. English is the source; the others are typed as Catalogue, so a
// missing key fails the type check.
import type { Lang } from '../languages.ts';
import { ar } from './ar.ts';
import { type Catalogue, en, type MessageKey } from './en.ts';
import { es } from './es.ts';
import { fa } from './fa.ts';
import { fr } from './fr.ts';
import { pt } from './pt.ts';
import { ru } from './ru.ts';
import { zh } from './zh.ts';

export type { Catalogue, MessageKey };

export const CATALOGUES: Record<Lang, Catalogue> = { en, es, fr, pt, ru, ar, fa, zh };
