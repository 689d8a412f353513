// The four product forms. One multipart form each; the field names are the API's own, so the
// server can hand the fields to the same checks as a JSON start. Each product's own fields are
// in its folder (products/<product>/form.ts).
import type { Product } from '../../../domain/ports.ts';
import { FORMS } from '../../../products/forms.ts';
import { html, type Html } from '../html.ts';
import { ENGLISH, type Words } from '../words.ts';
import type { FormLimits } from './form-fields.ts';
import { csrfField } from './parts.ts';

export type { FormLimits, Product };

/** A product form's heading (and the page's title). */
export const productTitle = (product: Product, w: Words = ENGLISH): string => w.t(FORMS[product].words.title);

export function productFormView(product: Product, v: { csrf: string; values: Record<string, string | string[]>; limits: FormLimits; words?: Words }): Html {
  const w = v.words ?? ENGLISH;
  return html`<h1>${w.t(FORMS[product].words.title)}</h1>
<p class="lead">${w.t(FORMS[product].words.intro)}</p>
<form method="post" action="/${product}" enctype="multipart/form-data" class="stack">
${csrfField(v.csrf)}
${FORMS[product].fields(v.values, v.limits, w)}
<div class="actions"><button type="submit">${w.t(FORMS[product].words.submit)}</button></div>
</form>
`;
}
