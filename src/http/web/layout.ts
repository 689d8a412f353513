// The document around every page: no script, no inline style, nothing from elsewhere; in the
// language of the request, with its direction, and a language chooser that works without script.
import { LANGS, LANGUAGES, tagOf } from '../../i18n/languages.ts';
import { html, type Html } from './html.ts';
import { buttonForm, csrfField } from './views/parts.ts';
import { ENGLISH, link, ltr, type Words } from './words.ts';

export interface Chrome {
  title: string;
  signedIn: { email: string } | null;
  csrf: string;
  /** `field`: the id of the control an error is about (marked in the body by render()). */
  notice?: { kind: 'error' | 'ok'; message: string; code?: string; field?: string };
  /** The page's language (English when not given). */
  words?: Words;
  /** Where the language chooser sends the person back to: this page's path. */
  back?: string;
}

function nav(chrome: Chrome, w: Words): Html {
  const { t } = w;
  if (!chrome.signedIn) {
    return html`<nav aria-label="${t('nav.label')}"><ul>
<li><a href="/sign-in">${t('nav.signIn')}</a></li>
<li><a href="/sign-up">${t('nav.signUp')}</a></li>
</ul></nav>`;
  }
  return html`<nav aria-label="${t('nav.label')}"><ul>
<li><a href="/hide">${t('nav.hide')}</a></li>
<li><a href="/reveal">${t('nav.reveal')}</a></li>
<li><a href="/analyse">${t('nav.analyse')}</a></li>
<li><a href="/convert">${t('nav.convert')}</a></li>
<li><a href="/account">${t('nav.account')}</a></li>
<li>${buttonForm('/sign-out', chrome.csrf, t('nav.signOut'), {}, 'inline sign-out')}</li>
</ul></nav>`;
}

/** The chooser: a label, a list of the languages each in its own script, a button. */
export function languageChooser(csrf: string, back: string, w: Words): Html {
  const options = LANGS.map(
    (l) => html`<option value="${l}" lang="${tagOf(l)}"${LANGUAGES[l].dir === 'rtl' ? html` dir="rtl"` : null}${l === w.lang ? html` selected` : null}>${LANGUAGES[l].name}</option>\n`,
  );
  return html`<form method="post" action="/language" class="inline lang-choice">${csrfField(csrf)}<input type="hidden" name="back" value="${back}">
<label for="lang-choice">${w.t('lang.label')}</label>
<select id="lang-choice" name="lang">
${options}</select>
<button type="submit">${w.t('lang.submit')}</button>
</form>`;
}

function notice(n: Chrome['notice'], w: Words): Html | null {
  if (!n) return null;
  const code = n.code ? html` <small class="code">(${n.code})</small>` : null;
  // confirmations are announced politely (status)
  if (n.kind === 'ok') return html`<div class="notice notice-ok" role="status"><p>${n.message}${code}</p></div>`;
  // a refused form: a summary at the top that interrupts (alert), linking to the field it is
  // about; not a heading, so the page's h1 stays its first
  return html`<div class="notice notice-error" role="alert" aria-labelledby="error-summary">
<p id="error-summary" class="summary-title"><strong>${w.t('form.errorSummary')}</strong></p>
<p>${n.field ? html`<a href="#${n.field}">${n.message}</a>` : n.message}${code}</p></div>`;
}

export function page(chrome: Chrome, body: Html): string {
  const w = chrome.words ?? ENGLISH;
  const { t, say } = w;
  // dir is written only where it is not the default, left to right
  return html`<!doctype html>
<html lang="${w.tag}"${w.dir === 'rtl' ? html` dir="rtl"` : null}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${chrome.notice?.kind === 'error' ? t('form.errorTitle', { title: chrome.title }) : chrome.title} · Obscura</title>
<link rel="stylesheet" href="/static/obscura.css">
</head>
<body>
<a class="skip" href="#main">${t('layout.skip')}</a>
<header class="site">
<div class="wrap">
<a class="brand" href="/">Obscura</a>
${nav(chrome, w)}
${languageChooser(chrome.csrf, chrome.back ?? '/', w)}
${chrome.signedIn ? html`<p class="who">${say('layout.signedInAs', { email: ltr(chrome.signedIn.email, 'email') })}</p>` : null}
</div>
</header>
<main id="main" class="wrap">
${notice(chrome.notice, w)}
${body}
</main>
<footer class="site">
<div class="wrap"><p>${say('layout.footer', { a: link('/#privacy') })} · <a href="/language">${t('lang.all')}</a></p></div>
</footer>
</body>
</html>
`.value;
}
