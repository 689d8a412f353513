// The pages of the mailed links: forgot password, set a new one, sign in by link, refuse a sign-up.
import { html, type Html } from '../html.ts';
import { ENGLISH, link, type Words } from '../words.ts';
import { csrfField, emailField } from './parts.ts';

function invalid(w: Words): Html {
  return html`<h1>${w.t('link.invalid.heading')}</h1>
<p role="alert">${w.t('link.invalid.text')}</p>
<p>${w.say('link.invalid.askAgain', { reset: link('/forgot'), signin: link('/sign-in') })}</p>
`;
}

export function forgotView(v: { csrf: string; email?: string; words?: Words }): Html {
  const w = v.words ?? ENGLISH;
  const { t } = w;
  return html`<h1>${t('forgot.title')}</h1>
<p>${t('forgot.text')}</p>
<form method="post" action="/forgot" class="stack">
${csrfField(v.csrf)}
${emailField(v.email, w)}
<div class="actions"><button type="submit">${t('forgot.submit')}</button></div>
</form>
<p><a href="/sign-in">${t('forgot.back')}</a></p>
`;
}

/** The one answer to a request for a mailed link, whatever the address. */
export function linkSentView(v: { email: string; words?: Words }): Html {
  const { t, say } = v.words ?? ENGLISH;
  return html`<h1>${t('mailSent.title')}</h1>
<p>${say('linkSent.text', { email: html`<strong class="email">${v.email}</strong>` })}</p>
<p>${t('linkSent.nothing')}</p>
`;
}

export function resetView(v: { csrf: string; token: string; minPassword: number; state: 'form' | 'invalid'; words?: Words }): Html {
  const w = v.words ?? ENGLISH;
  const { t } = w;
  if (v.state === 'invalid') return invalid(w);
  return html`<h1>${t('reset.title')}</h1>
<p>${t('reset.text')}</p>
<form method="post" action="/reset" class="stack">
${csrfField(v.csrf)}
<input type="hidden" name="token" value="${v.token}">
<div class="field">
<label for="password">${t('reset.password')}</label>
<input type="password" id="password" name="password" autocomplete="new-password" required minlength="${v.minPassword}" aria-describedby="password-hint">
<p class="hint" id="password-hint">${t('reset.password.hint', { min: v.minPassword })}</p>
</div>
<div class="field">
<label for="password-again">${t('reset.passwordAgain')}</label>
<input type="password" id="password-again" name="password_again" autocomplete="new-password" required minlength="${v.minPassword}">
</div>
<div class="actions"><button type="submit">${t('reset.submit')}</button></div>
</form>
`;
}

// links show a button rather than acting on GET: a mail scanner that follows links does nothing
export function signInLinkView(v: { csrf: string; token: string; state: 'confirm' | 'invalid'; words?: Words }): Html {
  const w = v.words ?? ENGLISH;
  const { t } = w;
  if (v.state === 'invalid') return invalid(w);
  return html`<h1>${t('signIn.title')}</h1>
<p>${t('signInLink.text')}</p>
<form method="post" action="/sign-in/link" class="stack">
${csrfField(v.csrf)}
<input type="hidden" name="token" value="${v.token}">
<div class="actions"><button type="submit">${t('signInLink.submit')}</button></div>
</form>
`;
}

export function refuseView(v: { csrf: string; token: string; state: 'confirm' | 'done' | 'invalid'; words?: Words }): Html {
  const { t, say } = v.words ?? ENGLISH;
  if (v.state === 'done') {
    return html`<h1>${t('refuse.done.heading')}</h1>
<p>${say('refuse.done.text', { a: link('/sign-up') })}</p>
`;
  }
  if (v.state === 'invalid') {
    return html`<h1>${t('link.invalid.heading')}</h1>
<p role="alert">${t('link.invalid.text')}</p>
<p>${say('refuse.invalid.next', { a: link('/forgot') })}</p>
`;
  }
  return html`<h1>${t('refuse.title')}</h1>
<p>${t('refuse.text')}</p>
<form method="post" action="/refuse" class="stack">
${csrfField(v.csrf)}
<input type="hidden" name="token" value="${v.token}">
<div class="actions"><button type="submit">${t('refuse.submit')}</button></div>
</form>
`;
}
