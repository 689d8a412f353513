import { html, type Html } from '../html.ts';
import { buttonForm, csrfField, utc } from './parts.ts';

export interface AccountKey {
  id: string;
  shown: string;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
}

function keyState(k: AccountKey, now: number): 'active' | 'revoked' | 'expired' {
  if (k.revokedAt !== null) return 'revoked';
  if (k.expiresAt !== null && k.expiresAt <= now) return 'expired';
  return 'active';
}

export function accountView(v: { csrf: string; email: string; verified: boolean; keys: AccountKey[]; newKey?: string; resendable: boolean }): Html {
  const now = Date.now();
  const newKey = v.newKey
    ? html`<section class="new-key" aria-labelledby="new-key-h">
<h2 id="new-key-h">Your new API key</h2>
<p><code id="new-key" class="key">${v.newKey}</code></p>
<p class="warning"><strong>Copy it now: it will not be shown again.</strong> The service keeps only a hash of it and cannot tell it to you later.</p>
</section>`
    : null;
  const unverified = v.verified
    ? null
    : html`<div class="notice notice-warn">
<p>Your API keys do not work until the address is verified: open the link that was sent to it.</p>
${v.resendable ? buttonForm('/account/verify-mail', v.csrf, 'Send the link again', {}, 'stack') : null}
</div>`;
  const rows = v.keys.map((k) => {
    const state = keyState(k, now);
    return html`<tr>
<td><code>${k.shown}</code></td>
<td>${utc(k.createdAt)}</td>
<td>${k.expiresAt === null ? 'never' : utc(k.expiresAt)}</td>
<td><span class="state state-${state}">${state}</span></td>
<td>${state === 'active' ? buttonForm('/account/keys/revoke', v.csrf, 'Revoke', { key_id: k.id }) : null}</td>
</tr>`;
  });
  return html`<h1>Your account</h1>
${newKey}
<section aria-labelledby="address">
<h2 id="address">E-mail address</h2>
<p><span class="email">${v.email}</span> — ${v.verified ? html`<span class="state state-active">verified</span>` : html`<span class="state state-expired">not verified</span>`}</p>
${unverified}
</section>
<section aria-labelledby="keys">
<h2 id="keys">API keys</h2>
<p>A key lets a program use the service as you, and signs you in here too.</p>
${
  v.keys.length
    ? html`<div class="table-wrap"><table>
<caption class="visually-hidden">Your API keys</caption>
<thead><tr><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`
    : html`<p>You have no keys yet.</p>`
}
<form method="post" action="/account/keys" class="stack">
${csrfField(v.csrf)}
<div class="actions"><button type="submit">Create a key</button></div>
</form>
</section>
`;
}
