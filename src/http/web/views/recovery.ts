// The pages of the mailed links: forgot password, set a new one, sign in by link, refuse a sign-up.
import { html, type Html } from '../html.ts';
import { csrfField, emailField } from './parts.ts';

const INVALID = html`<h1>This link does not work</h1>
<p role="alert">This link is not valid: it was used, it expired, or it was cut short.</p>
<p>Ask for a new one: <a href="/forgot">set a new password</a> or <a href="/sign-in">have a sign-in link mailed</a>.</p>
`;

export function forgotView(v: { csrf: string; email?: string }): Html {
  return html`<h1>Forgot your password?</h1>
<p>Enter the address of your account. A link to set a new password is mailed to it; it works once, for a short while.</p>
<form method="post" action="/forgot" class="stack">
${csrfField(v.csrf)}
${emailField(v.email)}
<div class="actions"><button type="submit">Mail me a link</button></div>
</form>
<p><a href="/sign-in">Back to sign-in</a></p>
`;
}

/** The one answer to a request for a mailed link, whatever the address. */
export function linkSentView(v: { email: string }): Html {
  return html`<h1>Check your mail</h1>
<p>If <strong class="email">${v.email}</strong> has an account here, a link is on its way to it. It works once and expires soon.</p>
<p>Nothing arrived? Look in the spam folder, or ask again in a few minutes.</p>
`;
}

export function resetView(v: { csrf: string; token: string; minPassword: number; state: 'form' | 'invalid' }): Html {
  if (v.state === 'invalid') return INVALID;
  return html`<h1>Set a new password</h1>
<p>Setting it signs out every browser signed in to your account, and signs this one in.</p>
<form method="post" action="/reset" class="stack">
${csrfField(v.csrf)}
<input type="hidden" name="token" value="${v.token}">
<div class="field">
<label for="password">New password</label>
<input type="password" id="password" name="password" autocomplete="new-password" required minlength="${v.minPassword}" aria-describedby="password-hint">
<p class="hint" id="password-hint">At least ${v.minPassword} characters. A long phrase of ordinary words is easier to remember and harder to guess.</p>
</div>
<div class="field">
<label for="password-again">New password again</label>
<input type="password" id="password-again" name="password_again" autocomplete="new-password" required minlength="${v.minPassword}">
</div>
<div class="actions"><button type="submit">Set the password</button></div>
</form>
`;
}

// links show a button rather than acting on GET: a mail scanner that follows links does nothing
export function signInLinkView(v: { csrf: string; token: string; state: 'confirm' | 'invalid' }): Html {
  if (v.state === 'invalid') return INVALID;
  return html`<h1>Sign in</h1>
<p>Press the button to sign in to your account in this browser.</p>
<form method="post" action="/sign-in/link" class="stack">
${csrfField(v.csrf)}
<input type="hidden" name="token" value="${v.token}">
<div class="actions"><button type="submit">Sign me in</button></div>
</form>
`;
}

export function refuseView(v: { csrf: string; token: string; state: 'confirm' | 'done' | 'invalid' }): Html {
  if (v.state === 'done') {
    return html`<h1>The sign-up is refused</h1>
<p>The account that was asked for with your address is deleted, with its password. Your address is free: you can <a href="/sign-up">sign up</a> with it yourself.</p>
`;
  }
  if (v.state === 'invalid') {
    return html`<h1>This link does not work</h1>
<p role="alert">This link is not valid: it was used, it expired, or it was cut short.</p>
<p>If someone else holds an account with your address, <a href="/forgot">set a new password</a> for it: that signs them out.</p>
`;
  }
  return html`<h1>Refuse this sign-up</h1>
<p>Someone asked to create an account with your address. If it was not you, refuse it: the account is deleted at once and nobody can use it.</p>
<form method="post" action="/refuse" class="stack">
${csrfField(v.csrf)}
<input type="hidden" name="token" value="${v.token}">
<div class="actions"><button type="submit">It was not me: delete it</button></div>
</form>
`;
}
