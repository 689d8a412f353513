// A product's web form: its own fields, and how what the browser sends becomes the start body
// the API takes (http/web/product-pages.ts hands that body to the product's start schema).
import type { Product } from '../domain/ports.ts';
import type { Html } from '../http/web/html.ts';
import type { FormLimits, Values } from '../http/web/views/form-fields.ts';
import type { MessageKey, Words } from '../http/web/words.ts';

export interface ProductForm {
  product: Product;
  /** Its heading (and the page's title), the line under it, and its button. */
  words: { title: MessageKey; intro: MessageKey; submit: MessageKey };
  /** Which file input goes to which step of the session. */
  steps: Record<string, number>;
  /** Checkboxes: the form always has them, so one left empty (sent as nothing) is false. */
  flags?: readonly string[];
  /** Fields sent as numbers when they read as one. */
  numbers?: readonly string[];
  /** Fields sent once per ticked box: kept as a list. */
  lists?: readonly string[];
  /** Last touches to the body made of the fields. */
  tidy?(body: Record<string, unknown>): void;
  /** The form's own controls, between the CSRF field and the button. */
  fields(values: Values, limits: FormLimits, w: Words): Html;
}
