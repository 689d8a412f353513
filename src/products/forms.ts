// Each product's web form, by product key (the pages serve them all alike).
import type { Product } from '../domain/ports.ts';
import { analyseForm } from './analyse/form.ts';
import { convertForm } from './convert/form.ts';
import type { ProductForm } from './form.ts';
import { hideForm, revealForm } from './stego/form.ts';

export const FORMS: Record<Product, ProductForm> = { hide: hideForm, reveal: revealForm, analyse: analyseForm, convert: convertForm };

export type { ProductForm };
