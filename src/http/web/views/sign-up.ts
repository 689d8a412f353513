import { html, type Html } from '../html.ts';
import { ENGLISH, link, type Words } from '../words.ts';
import { csrfField, emailField } from './parts.ts';

export function signUpView(v: { csrf: string; open: boolean; email?: string; minPassword: number; words?: Words }): Html {
  const w = v.words ?? ENGLISH;
  const { t, say } = w;
  if (!v.open) {
    return html`<h1>${t('signUp.title')}</h1>
<p class="closed">${t('signUp.closed')}</p>
<p>${say('signUp.haveAccount', { a: link('/sign-in') })}</p>
`;
  }
  return html`<h1>${t('signUp.title')}</h1>
<form method="post" action="/sign-up" class="stack">
${csrfField(v.csrf)}
${emailField(v.email, w)}
<div class="field">
<label for="password">${t('form.password')}</label>
<input type="password" id="password" name="password" autocomplete="new-password" required minlength="${v.minPassword}" aria-describedby="password-hint">
<p class="hint" id="password-hint">${t('signUp.password.hint', { min: v.minPassword })}</p>
</div>
<div class="field">
<label for="password-again">${t('signUp.passwordAgain')}</label>
<input type="password" id="password-again" name="password_again" autocomplete="new-password" required minlength="${v.minPassword}">
</div>
<div class="actions"><button type="submit">${t('signUp.submit')}</button></div>
</form>
<p class="hint">${t('signUp.mailHint')}</p>
<p>${say('signUp.haveAccount', { a: link('/sign-in') })}</p>
`;
}

export function signUpSentView(v: { email: string; words?: Words }): Html {
  const { t, say } = v.words ?? ENGLISH;
  return html`<h1>${t('mailSent.title')}</h1>
<p>${say('signUp.sent', { email: html`<strong class="email">${v.email}</strong>` })}</p>
<p>${say('signUp.sent.nothing', { a: link('/account') })}</p>
`;
}
