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

export interface AccountSession {
  id: string;
  openedAt: number;
  seenAt: number;
  network: 'clearnet' | 'onion' | 'i2p';
  method: 'password' | 'key' | 'link';
  current: boolean;
}

const NETWORK_WORDS = { clearnet: 'web', onion: 'Tor onion', i2p: 'I2P' } as const;
const METHOD_WORDS = { password: 'password', key: 'API key', link: 'mailed link' } as const;

function sessionsSection(v: { csrf: string; sessions: AccountSession[] }): Html {
  const rows = v.sessions.map(
    (s) => html`<tr class="session">
<td>${utc(s.openedAt)}${s.current ? html` <strong>(this browser)</strong>` : null}</td>
<td>${utc(s.seenAt)}</td>
<td>${NETWORK_WORDS[s.network]}</td>
<td>${METHOD_WORDS[s.method]}</td>
<td>${s.current ? null : buttonForm('/account/sessions/end', v.csrf, 'End', { session: s.id })}</td>
</tr>`,
  );
  const others = v.sessions.some((s) => !s.current);
  return html`<section aria-labelledby="sessions">
<h2 id="sessions">Where you are signed in</h2>
<p>Every browser signed in to this account. End any you do not know; revoking a key ends the sessions it signed in.</p>
<div class="table-wrap"><table>
<caption class="visually-hidden">Your web sessions</caption>
<thead><tr><th scope="col">Signed in</th><th scope="col">Last seen</th><th scope="col">Network</th><th scope="col">With</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>
${others ? buttonForm('/account/sessions/end-others', v.csrf, 'End all other sessions', {}, 'stack') : null}
</section>`;
}

export function accountView(v: { csrf: string; email: string; verified: boolean; keys: AccountKey[]; sessions: AccountSession[]; newKey?: string; resendable: boolean }): Html {
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
${sessionsSection(v)}
`;
}
