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
import { type FindingsCatalogue, findingsEn } from './findings-en.ts';
import { findingsEs } from './findings-es.ts';
import { findingsFr } from './findings-fr.ts';
import { findingsPt } from './findings-pt.ts';
import { findingsRu } from './findings-ru.ts';
import { findingsAr } from './findings-ar.ts';
import { findingsFa } from './findings-fa.ts';
import { findingsZh } from './findings-zh.ts';


export type { Catalogue, MessageKey };

export const CATALOGUES: Record<Lang, Catalogue> = { en, es, fr, pt, ru, ar, fa, zh };

/** The analyse report's findings, tips and grade reasons by language (findings-en.ts is the source). */
export const FINDINGS_CATALOGUES: Record<Lang, FindingsCatalogue> = { en: findingsEn, es: findingsEs, fr: findingsFr, pt: findingsPt, ru: findingsRu, ar: findingsAr, fa: findingsFa, zh: findingsZh };
export type { FindingsCatalogue };
