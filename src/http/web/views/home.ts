import { html, type Html } from '../html.ts';
import { ENGLISH, link, type Words } from '../words.ts';
import { durationWords, humanBytes } from './parts.ts';

export function homeView(v: {
  signedIn: boolean;
  signUpOpen: boolean;
  limits: { fileMaxBytes: number; sessionMaxFiles: number; expiryDefault: string; expiryMax: string };
  words?: Words;
}): Html {
  const w = v.words ?? ENGLISH;
  const { t, say } = w;
  const l = v.limits;
  const cta = v.signedIn
    ? null
    : html`<section class="cta" aria-labelledby="start">
<h2 id="start">${t('home.start')}</h2>
<p>${
        v.signUpOpen
          ? say('home.start.open', { signin: link('/sign-in', 'button'), signup: link('/sign-up', 'button') })
          : say('home.start.closed', { signin: link('/sign-in', 'button') })
      }</p>
</section>`;
  return html`<h1>Obscura</h1>
<p class="lead">${t('home.lead')}</p>
${cta}
<section aria-labelledby="products">
<h2 id="products">${t('home.products')}</h2>
<div class="cards">
<article class="card">
<h3><a href="/hide">${t('nav.hide')}</a></h3>
<p>${t('home.hide')}</p>
</article>
<article class="card">
<h3><a href="/reveal">${t('nav.reveal')}</a></h3>
<p>${t('home.reveal')}</p>
</article>
<article class="card">
<h3><a href="/analyse">${t('nav.analyse')}</a></h3>
<p>${t('home.analyse')}</p>
</article>
<article class="card">
<h3><a href="/convert">${t('nav.convert')}</a></h3>
<p>${t('home.convert')}</p>
</article>
</div>
<p class="hint">${t('home.limits', { size: humanBytes(l.fileMaxBytes, w), count: l.sessionMaxFiles })}</p>
</section>
<section id="privacy" aria-labelledby="privacy-h">
<h2 id="privacy-h">${t('home.privacy')}</h2>
<ul>
<li>${t('home.privacy.encrypted')}</li>
<li>${t('home.privacy.expiry', { default: durationWords(l.expiryDefault, w), max: durationWords(l.expiryMax, w) })}</li>
<li>${t('home.privacy.logs')}</li>
<li>${t('home.privacy.stripped')}</li>
<li>${t('home.privacy.noScript')}</li>
<li>${t('home.privacy.account')}</li>
</ul>
</section>
`;
}
