import { html, type Html } from '../html.ts';
import { ENGLISH, ltr, type Words } from '../words.ts';
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

const NETWORK_WORDS = { clearnet: 'network.clearnet', onion: 'network.onion', i2p: 'network.i2p' } as const;
const METHOD_WORDS = { password: 'method.password', key: 'method.key', link: 'method.link' } as const;
const STATE_WORDS = { active: 'account.keys.active', revoked: 'account.keys.revoked', expired: 'account.keys.expired' } as const;

function sessionsSection(v: { csrf: string; sessions: AccountSession[] }, w: Words): Html {
  const { t } = w;
  const rows = v.sessions.map(
    (s) => html`<tr class="session">
<td>${ltr(utc(s.openedAt))}${s.current ? html` <strong>${t('account.sessions.thisBrowser')}</strong>` : null}</td>
<td>${ltr(utc(s.seenAt))}</td>
<td>${t(NETWORK_WORDS[s.network])}</td>
<td>${t(METHOD_WORDS[s.method])}</td>
<td>${s.current ? null : buttonForm('/account/sessions/end', v.csrf, t('account.sessions.end'), { session: s.id })}</td>
</tr>`,
  );
  const others = v.sessions.some((s) => !s.current);
  return html`<section aria-labelledby="sessions">
<h2 id="sessions">${t('account.sessions')}</h2>
<p>${t('account.sessions.text')}</p>
<div class="table-wrap"><table>
<caption class="visually-hidden">${t('account.sessions.caption')}</caption>
<thead><tr><th scope="col">${t('account.sessions.opened')}</th><th scope="col">${t('account.sessions.seen')}</th><th scope="col">${t('account.sessions.network')}</th><th scope="col">${t('account.sessions.method')}</th><th scope="col"><span class="visually-hidden">${t('form.action')}</span></th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>
${others ? buttonForm('/account/sessions/end-others', v.csrf, t('account.sessions.endOthers'), {}, 'stack') : null}
</section>`;
}

export function accountView(v: { csrf: string; email: string; verified: boolean; keys: AccountKey[]; sessions: AccountSession[]; newKey?: string; resendable: boolean; words?: Words }): Html {
  const w = v.words ?? ENGLISH;
  const { t, say } = w;
  const now = Date.now();
  const newKey = v.newKey
    ? html`<section class="new-key" aria-labelledby="new-key-h">
<h2 id="new-key-h">${t('account.newKey')}</h2>
<p><code id="new-key" class="key" dir="ltr">${v.newKey}</code></p>
<p class="warning">${say('account.newKey.warning')}</p>
</section>`
    : null;
  const unverified = v.verified
    ? null
    : html`<div class="notice notice-warn">
<p>${t('account.unverified')}</p>
${v.resendable ? buttonForm('/account/verify-mail', v.csrf, t('account.resend'), {}, 'stack') : null}
</div>`;
  const rows = v.keys.map((k) => {
    const state = keyState(k, now);
    return html`<tr>
<td><code dir="ltr">${k.shown}</code></td>
<td>${ltr(utc(k.createdAt))}</td>
<td>${k.expiresAt === null ? t('account.keys.never') : ltr(utc(k.expiresAt))}</td>
<td><span class="state state-${state}">${t(STATE_WORDS[state])}</span></td>
<td>${state === 'active' ? buttonForm('/account/keys/revoke', v.csrf, t('account.keys.revoke'), { key_id: k.id }) : null}</td>
</tr>`;
  });
  return html`<h1>${t('account.title')}</h1>
${newKey}
<section aria-labelledby="address">
<h2 id="address">${t('account.address')}</h2>
<p>${ltr(v.email, 'email')} — ${v.verified ? html`<span class="state state-active">${t('account.verified')}</span>` : html`<span class="state state-expired">${t('account.notVerified')}</span>`}</p>
${unverified}
</section>
<section aria-labelledby="keys">
<h2 id="keys">${t('account.keys')}</h2>
<p>${t('account.keys.text')}</p>
${
  v.keys.length
    ? html`<div class="table-wrap"><table>
<caption class="visually-hidden">${t('account.keys.caption')}</caption>
<thead><tr><th scope="col">${t('account.keys.key')}</th><th scope="col">${t('account.keys.created')}</th><th scope="col">${t('account.keys.expires')}</th><th scope="col">${t('account.keys.state')}</th><th scope="col"><span class="visually-hidden">${t('form.action')}</span></th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`
    : html`<p>${t('account.keys.none')}</p>`
}
<form method="post" action="/account/keys" class="stack">
${csrfField(v.csrf)}
<div class="actions"><button type="submit">${t('account.keys.create')}</button></div>
</form>
</section>
${sessionsSection(v, w)}
`;
}
