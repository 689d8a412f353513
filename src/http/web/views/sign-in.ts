import { html, type Html } from '../html.ts';
import { ENGLISH, link, type Words } from '../words.ts';
import { csrfField, emailField } from './parts.ts';

export function signInView(v: { csrf: string; email?: string; mail: boolean; words?: Words }): Html {
  const w = v.words ?? ENGLISH;
  const { t, say } = w;
  return html`<h1>${t('signIn.title')}</h1>
<section aria-labelledby="with-password">
<h2 id="with-password">${t('signIn.withPassword')}</h2>
<form method="post" action="/sign-in" class="stack">
${csrfField(v.csrf)}
<input type="hidden" name="method" value="password">
${emailField(v.email, w)}
<div class="field">
<label for="password">${t('form.password')}</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
</div>
<div class="actions"><button type="submit">${t('signIn.submit')}</button></div>
</form>
${v.mail ? html`<p><a href="/forgot">${t('signIn.forgot')}</a></p>` : null}
</section>
<section aria-labelledby="with-key">
<h2 id="with-key">${t('signIn.withKey')}</h2>
<form method="post" action="/sign-in" class="stack">
${csrfField(v.csrf)}
<input type="hidden" name="method" value="key">
<div class="field">
<label for="api-key">${t('signIn.key')}</label>
<input type="password" id="api-key" name="api_key" autocomplete="off" required spellcheck="false" aria-describedby="api-key-hint">
<p class="hint" id="api-key-hint">${t('signIn.key.hint')}</p>
</div>
<div class="actions"><button type="submit">${t('signIn.key.submit')}</button></div>
</form>
</section>
${
  v.mail
    ? html`<section aria-labelledby="with-link">
<h2 id="with-link">${t('signIn.withLink')}</h2>
<form method="post" action="/sign-in/mail" class="stack">
${csrfField(v.csrf)}
<div class="field">
<label for="link-email">${t('form.email')}</label>
<input type="email" id="link-email" name="email" autocomplete="username" required value="${v.email ?? ''}" aria-describedby="link-hint">
<p class="hint" id="link-hint">${t('signIn.link.hint')}</p>
</div>
<div class="actions"><button type="submit">${t('signIn.link.submit')}</button></div>
</form>
</section>`
    : null
}
<p>${say('signIn.noAccount', { a: link('/sign-up') })}</p>
`;
}
