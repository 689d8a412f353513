import { html, type Html } from '../html.ts';
import { csrfField } from './parts.ts';

export function verifyView(v: { csrf: string; token: string; state: 'confirm' | 'done' | 'invalid' }): Html {
  if (v.state === 'done') {
    return html`<h1>Your address is verified</h1>
<p>Your API keys now work. <a href="/account">Go to your account</a>.</p>
`;
  }
  if (v.state === 'invalid') {
    return html`<h1>This link does not work</h1>
<p role="alert">This link is not valid: it was used, it expired, or it was cut short.</p>
<p>A new one can be sent from <a href="/account">your account</a>.</p>
`;
  }
  // a button rather than verifying on GET, so a mail scanner that follows links verifies nothing
  return html`<h1>Verify your e-mail address</h1>
<p>Press the button to confirm that this address is yours. Your API keys start to work once it is verified.</p>
<form method="post" action="/verify" class="stack">
${csrfField(v.csrf)}
<input type="hidden" name="token" value="${v.token}">
<div class="actions"><button type="submit">Verify my address</button></div>
</form>
`;
}
