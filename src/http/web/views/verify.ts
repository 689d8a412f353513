import { html, type Html } from '../html.ts';
import { ENGLISH, link, type Words } from '../words.ts';
import { csrfField } from './parts.ts';

export function verifyView(v: { csrf: string; token: string; state: 'confirm' | 'done' | 'invalid'; words?: Words }): Html {
  const { t, say } = v.words ?? ENGLISH;
  if (v.state === 'done') {
    return html`<h1>${t('verify.done.heading')}</h1>
<p>${say('verify.done.text', { a: link('/account') })}</p>
`;
  }
  if (v.state === 'invalid') {
    return html`<h1>${t('link.invalid.heading')}</h1>
<p role="alert">${t('link.invalid.text')}</p>
<p>${say('verify.invalid.next', { a: link('/account') })}</p>
`;
  }
  // a button rather than verifying on GET, so a mail scanner that follows links verifies nothing
  return html`<h1>${t('verify.heading')}</h1>
<p>${t('verify.text')}</p>
<form method="post" action="/verify" class="stack">
${csrfField(v.csrf)}
<input type="hidden" name="token" value="${v.token}">
<div class="actions"><button type="submit">${t('verify.submit')}</button></div>
</form>
`;
}
