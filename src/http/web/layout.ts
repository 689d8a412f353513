// The document around every page: no script, no inline style, nothing from elsewhere.
import { html, type Html } from './html.ts';
import { buttonForm } from './views/parts.ts';

export interface Chrome {
  title: string;
  signedIn: { email: string } | null;
  csrf: string;
  refreshS?: number;
  notice?: { kind: 'error' | 'ok'; message: string; code?: string };
}

function nav(chrome: Chrome): Html {
  if (!chrome.signedIn) {
    return html`<nav aria-label="Main"><ul>
<li><a href="/sign-in">Sign in</a></li>
<li><a href="/sign-up">Sign up</a></li>
</ul></nav>`;
  }
  return html`<nav aria-label="Main"><ul>
<li><a href="/hide">Hide</a></li>
<li><a href="/reveal">Reveal</a></li>
<li><a href="/analyse">Analyse</a></li>
<li><a href="/convert">Convert</a></li>
<li><a href="/account">Account</a></li>
<li>${buttonForm('/sign-out', chrome.csrf, 'Sign out', {}, 'inline sign-out')}</li>
</ul></nav>`;
}

function notice(n: Chrome['notice']): Html | null {
  if (!n) return null;
  // errors interrupt (alert); confirmations are announced politely (status)
  const role = n.kind === 'error' ? 'alert' : 'status';
  return html`<div class="notice notice-${n.kind}" role="${role}"><p>${n.message}${n.code ? html` <small class="code">(${n.code})</small>` : null}</p></div>`;
}

export function page(chrome: Chrome, body: Html): string {
  const refresh = chrome.refreshS !== undefined ? html`<meta http-equiv="refresh" content="${Math.max(1, Math.round(chrome.refreshS))}">\n` : null;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
${refresh}<title>${chrome.title} · Obscura</title>
<link rel="stylesheet" href="/static/obscura.css">
</head>
<body>
<a class="skip" href="#main">Skip to the content</a>
<header class="site">
<div class="wrap">
<a class="brand" href="/">Obscura</a>
${nav(chrome)}
${chrome.signedIn ? html`<p class="who">Signed in as <span class="email">${chrome.signedIn.email}</span></p>` : null}
</div>
</header>
<main id="main" class="wrap">
${notice(chrome.notice)}
${body}
</main>
<footer class="site">
<div class="wrap"><p>Files are kept encrypted only until their results expire; no IP addresses, file names or passphrases are logged. <a href="/#privacy">What this service keeps</a></p></div>
</footer>
</body>
</html>
`.value;
}
