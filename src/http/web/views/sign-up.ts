import { html, type Html } from '../html.ts';
import { csrfField, emailField } from './parts.ts';

export function signUpView(v: { csrf: string; open: boolean; email?: string; minPassword: number }): Html {
  if (!v.open) {
    return html`<h1>Sign up</h1>
<p class="closed">Sign-up is closed on this service: it sends no mail. The operator adds accounts with the command line.</p>
<p>Already have an account? <a href="/sign-in">Sign in</a>.</p>
`;
  }
  return html`<h1>Sign up</h1>
<form method="post" action="/sign-up" class="stack">
${csrfField(v.csrf)}
${emailField(v.email)}
<div class="field">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="new-password" required minlength="${v.minPassword}" aria-describedby="password-hint">
<p class="hint" id="password-hint">At least ${v.minPassword} characters, and not a common password, a repeat, a sequence or a keyboard row. A long phrase of ordinary words is easier to remember and harder to guess.</p>
</div>
<div class="field">
<label for="password-again">Password again</label>
<input type="password" id="password-again" name="password_again" autocomplete="new-password" required minlength="${v.minPassword}">
</div>
<div class="actions"><button type="submit">Create account</button></div>
</form>
<p class="hint">A verification link is sent to this address by mail. API keys work only after the address is verified.</p>
<p>Already have an account? <a href="/sign-in">Sign in</a>.</p>
`;
}

export function signUpSentView(v: { email: string }): Html {
  return html`<h1>Check your mail</h1>
<p>A link was sent to <strong class="email">${v.email}</strong>. It expires after a while, so open it soon — and open it in this browser, where you are signed in.</p>
<p>Nothing arrived? Look in the spam folder, or send it again from <a href="/account">your account</a>.</p>
`;
}
