import { html, type Html } from '../html.ts';
import { csrfField, emailField } from './parts.ts';

export function signInView(v: { csrf: string; email?: string; mail: boolean }): Html {
  return html`<h1>Sign in</h1>
<section aria-labelledby="with-password">
<h2 id="with-password">With your e-mail address and password</h2>
<form method="post" action="/sign-in" class="stack">
${csrfField(v.csrf)}
<input type="hidden" name="method" value="password">
${emailField(v.email)}
<div class="field">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
</div>
<div class="actions"><button type="submit">Sign in</button></div>
</form>
${v.mail ? html`<p><a href="/forgot">Forgot your password?</a></p>` : null}
</section>
<section aria-labelledby="with-key">
<h2 id="with-key">With an API key</h2>
<form method="post" action="/sign-in" class="stack">
${csrfField(v.csrf)}
<input type="hidden" name="method" value="key">
<div class="field">
<label for="api-key">API key</label>
<input type="password" id="api-key" name="api_key" autocomplete="off" required spellcheck="false" aria-describedby="api-key-hint">
<p class="hint" id="api-key-hint">A key works only once the account's e-mail address is verified.</p>
</div>
<div class="actions"><button type="submit">Sign in with key</button></div>
</form>
</section>
${
  v.mail
    ? html`<section aria-labelledby="with-link">
<h2 id="with-link">With a link by mail</h2>
<form method="post" action="/sign-in/mail" class="stack">
${csrfField(v.csrf)}
<div class="field">
<label for="link-email">E-mail address</label>
<input type="email" id="link-email" name="email" autocomplete="username" required value="${v.email ?? ''}" aria-describedby="link-hint">
<p class="hint" id="link-hint">A link that signs you in once, for a short while, is mailed to the address of a verified account.</p>
</div>
<div class="actions"><button type="submit">Mail me a sign-in link</button></div>
</form>
</section>`
    : null
}
<p>No account yet? <a href="/sign-up">Sign up</a>.</p>
`;
}
