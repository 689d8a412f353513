// The HTML views for Tor Browser at "Safest": every page rendered with realistic data and checked
// for what the CSP and a script-less browser need, and for escaping and prefilling.
import { readFileSync } from 'node:fs';
import type { ExecutionContext } from 'ava';
import { test } from './helpers/test.ts';
import { Html, escapeHtml, html, raw } from '../src/http/web/html.ts';
import { page, type Chrome } from '../src/http/web/layout.ts';
import { homeView } from '../src/http/web/views/home.ts';
import { signInView } from '../src/http/web/views/sign-in.ts';
import { signUpSentView, signUpView } from '../src/http/web/views/sign-up.ts';
import { verifyView } from '../src/http/web/views/verify.ts';
import { accountView } from '../src/http/web/views/account.ts';
import { forgotView, linkSentView, refuseView, resetView, signInLinkView } from '../src/http/web/views/recovery.ts';
import { productFormView, type FormLimits, type Product } from '../src/http/web/views/forms.ts';
import { convertResultView, jobView, stegoResultView, type JobInfo, type ResultFile } from '../src/http/web/views/job.ts';
import { analyseReportView, type AnalyseItem } from '../src/http/web/views/report.ts';
import { errorView } from '../src/http/web/views/error.ts';
import { markInvalid } from '../src/http/web/field-errors.ts';

const EVIL = '<img src=x onerror=1>';
const CSRF = 'csrf-token-"abc"';
const NO_ANSWER = 'No answer — this check could not run or did not apply; it is not a clean result.';
// a real analyse item (c2pa-ai-generated.png through the real service); camera_fingerprint is null
const ITEM: AnalyseItem = JSON.parse(readFileSync(new URL('./fixtures/analyse-item.json', import.meta.url), 'utf8'));
const FAILED_ITEM: AnalyseItem = {
  name: 'broken.jpg',
  error: 'unsupported_media',
  message: 'The file is not an image or a video this service recognises.',
  grade: null,
};

const LIMITS: FormLimits = {
  fileMaxBytes: 2 * 1024 ** 3,
  sessionMaxFiles: 20,
  expiryMax: '7d',
  imageFormats: ['jpeg', 'png', 'webp', 'avif', 'heic', 'jxl'],
  videoFormats: ['mp4h264', 'mp4h265', 'webm', 'mkv', 'mov'],
  stegoImageFormats: ['png', 'webp', 'tiff'],
  stegoVideoFormats: ['mkv', 'avi'],
  stegosuiteMaxPixels: 4_000_000,
  fits: ['inside', 'cover', 'contain', 'fill', 'outside'],
};

const T0 = Date.UTC(2026, 10, 24, 22, 4, 22);
const job = (product: Product, state: JobInfo['state'], message = 'Working on 1 of 2 files.'): JobInfo => ({
  id: 'job_mJswO6O1vhIXmCoOX5wCYw',
  product,
  state,
  progress: state === 'processing' ? 42 : state === 'queued' ? 0 : 100,
  message,
  createdAt: T0,
  finishedAt: state === 'queued' || state === 'processing' ? null : T0 + 3_500,
  expiresAt: state === 'queued' || state === 'processing' ? null : T0 + 86_400_000,
});

function doc(body: Html, chrome: Partial<Chrome> = {}): string {
  return page({ title: 'Test', signedIn: { email: 'ada@example.org' }, csrf: CSRF, ...chrome }, body);
}

const tags = (d: string) => d.match(/<[a-z][^>]*>/gi) ?? [];
/** The attributes of a tag, in order: [name, value, quoted]; quoted values are consumed whole. */
function attrs(tag: string): [string, string | undefined, boolean][] {
  const inner = tag.replace(/^<[a-z0-9]+/i, '').replace(/\/?>$/, '');
  return [...inner.matchAll(/\s*([^\s=>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g)].map((m) => [m[1], m[2] ?? m[3] ?? m[4], m[2] !== undefined || m[3] !== undefined]);
}
const attr = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`, 'i').exec(tag)?.[1];

/** What every page must satisfy to work under the CSP without JavaScript. */
function checkDocument(t: ExecutionContext, d: string, what: string) {
  t.true(d.startsWith('<!doctype html>'), what);
  t.regex(d, /<html lang="en">/, what);
  t.notRegex(d, /<script/i, `${what}: script`);
  t.notRegex(d, /<style/i, `${what}: style element`);
  t.notRegex(d, /<link[^>]+href="(?!\/static\/obscura\.css")/i, `${what}: only the one stylesheet`);
  for (const tag of tags(d)) {
    for (const [name, value, quoted] of attrs(tag)) {
      t.notRegex(name, /^on/i, `${what}: event handler in ${tag}`);
      t.not(name.toLowerCase(), 'style', `${what}: inline style in ${tag}`);
      t.true(quoted || value === undefined, `${what}: unquoted ${name} in ${tag}`);
      t.notRegex(value ?? '', /javascript:/i, `${what}: javascript: URL in ${tag}`);
      if (/^(href|src|action|formaction)$/i.test(name)) {
        t.regex(value ?? '', /^[/#]/, `${what}: ${name}="${value}" is not a relative path`);
        t.notRegex(value ?? '', /^\/\//, `${what}: protocol-relative URL`);
      }
    }
    // and, cruder, on the tag with its quoted values blanked out
    t.notRegex(tag.replace(/"[^"]*"/g, '""'), /\son[a-z]+\s*=/i, `${what}: event handler in ${tag}`);
  }
  // every visible control has an id and a <label for> pointing at it
  const labels = new Set([...d.matchAll(/<label[^>]*\sfor="([^"]+)"/g)].map((m) => m[1]));
  for (const tag of tags(d).filter((x) => /^<(input|select|textarea)\b/i.test(x))) {
    const type = attr(tag, 'type');
    if (/^<input/i.test(tag) && (type === 'hidden' || type === 'submit')) continue;
    const id = attr(tag, 'id');
    t.truthy(id, `${what}: control without id: ${tag}`);
    t.true(labels.has(id!), `${what}: no label for #${id}`);
  }
  const ids = [...d.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]);
  t.is(new Set(ids).size, ids.length, `${what}: duplicate ids ${ids}`);
  // the csrf token is the first field of every form
  const forms = [...d.matchAll(/<form\b[^>]*>([\s\S]*?)<\/form>/g)];
  for (const f of forms) {
    t.regex(f[0], /^<form[^>]*method="post"/, `${what}: forms post`);
    const first = /<(input|select|textarea|button)\b[^>]*>/.exec(f[1])?.[0] ?? '';
    t.regex(first, /^<input type="hidden" name="csrf" value="csrf-token-&quot;abc&quot;">$/, `${what}: first field of ${f[0].slice(0, 80)}`);
  }
  t.is((d.match(/<form\b/g) ?? []).length, forms.length, `${what}: nested or unclosed form`);
  t.false(/<button(?![^>]*type="submit")/.test(d), `${what}: every button says type=submit`);
  // headings: one h1, none skipped
  const levels = [...d.matchAll(/<h([1-6])\b/g)].map((m) => Number(m[1]));
  t.is(levels[0], 1, `${what}: starts with h1`);
  t.is(levels.filter((l) => l === 1).length, 1, `${what}: one h1`);
  levels.forEach((l, i) => i && t.true(l <= levels[i - 1] + 1, `${what}: heading h${l} after h${levels[i - 1]}`));
  // no password field ever carries a value
  for (const tag of tags(d).filter((x) => /type="password"/.test(x))) t.is(attr(tag, 'value'), undefined, `${what}: prefilled password ${tag}`);
}

/** The opening tag of the control with this id. */
function control(d: string, id: string): string {
  const m = new RegExp(`<(input|select|textarea)\\b[^>]*\\sid="${id}"[^>]*>`).exec(d);
  if (!m) throw new Error(`no control #${id}`);
  return m[0];
}
function selectedValue(d: string, id: string): string | undefined {
  const start = d.indexOf(control(d, id));
  const body = d.slice(start, d.indexOf('</select>', start));
  return /<option value="([^"]*)" selected>/.exec(body)?.[1];
}
const checked = (d: string, id: string) => / checked\b/.test(control(d, id));

test('html escapes values, keeps Html, flattens arrays and drops null, undefined and booleans', (t) => {
  t.is(escapeHtml(`<a href="x">&'`), '&lt;a href=&quot;x&quot;&gt;&amp;&#39;');
  const inner = html`<b>${'<i>'}</b>`;
  t.is(inner.value, '<b>&lt;i&gt;</b>');
  t.is(html`${inner}|${raw('<hr>')}`.value, '<b>&lt;i&gt;</b>|<hr>');
  t.is(html`${[1, '<', [html`<br>`, null]]}`.value, '1&lt;<br>');
  t.is(html`[${null}${undefined}${false}${true}${0}${''}]`.value, '[0]');
  t.true(html`x` instanceof Html);
});

test('the layout: signed in, signed out, never a timed reload, and notices (an error one a summary with its title saying so)', (t) => {
  const inDoc = doc(html`<h1>Hello</h1>`, { title: `Hide ${EVIL}`, signedIn: { email: `${EVIL}@example.org` }, notice: { kind: 'error', message: EVIL, code: 'file_too_large' } });
  checkDocument(t, inDoc, 'signed in');
  for (const p of ['/hide', '/reveal', '/analyse', '/convert', '/account', '/', '/#privacy', '/static/obscura.css']) t.true(inDoc.includes(`href="${p}"`), p);
  t.regex(inDoc, /<form method="post" action="\/sign-out"[^>]*><input type="hidden" name="csrf"[^>]*><button type="submit">Sign out<\/button><\/form>/);
  t.regex(inDoc, /<title>Error: Hide &lt;img src=x onerror=1&gt; · Obscura<\/title>/);
  t.regex(inDoc, /<meta name="referrer" content="no-referrer">/);
  t.regex(inDoc, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
  t.regex(inDoc, /<div class="notice notice-error" role="alert" aria-labelledby="error-summary">\n<p id="error-summary" class="summary-title"><strong>There is a problem<\/strong><\/p>\n<p>&lt;img src=x onerror=1&gt; <small class="code">\(file_too_large\)<\/small>/);
  t.false(inDoc.includes(EVIL));
  t.notRegex(inDoc, /http-equiv="refresh"/);
  t.notRegex(inDoc, /href="\/sign-in"/);

  const outDoc = doc(html`<h1>Hello</h1>`, { title: 'Hello', signedIn: null, notice: { kind: 'ok', message: 'Saved.' } });
  checkDocument(t, outDoc, 'signed out');
  t.regex(outDoc, /href="\/sign-in"/);
  t.regex(outDoc, /href="\/sign-up"/);
  t.notRegex(outDoc, /href="\/hide"|action="\/sign-out"/);
  t.notRegex(outDoc, /http-equiv="refresh"/);
  t.regex(outDoc, /<title>Hello · Obscura<\/title>/);
  t.regex(outDoc, /role="status"><p>Saved\.<\/p>/);
});

test('a refused field: marked invalid, its message before it (escaped) and first in aria-describedby; a field the form lacks marks nothing', (t) => {
  const form = signUpView({ csrf: CSRF, open: true, minPassword: 12 });
  const marked = markInvalid(form, 'password', EVIL)!.value;
  t.regex(marked, /<p class="field-error" id="password-error">&lt;img src=x onerror=1&gt;<\/p>\n<input type="password" id="password"[^>]* aria-describedby="password-error password-hint" aria-invalid="true">/);
  t.false(marked.includes(EVIL));
  const again = markInvalid(form, 'password-again', 'The two passwords differ.')!.value;
  t.regex(again, /<input type="password" id="password-again"[^>]* aria-describedby="password-again-error" aria-invalid="true">/);
  t.is((again.match(/aria-invalid/g) ?? []).length, 1, 'only that field');
  t.is(markInvalid(form, 'quality', 'x'), null);
  const d = doc(form, { title: 'Sign up', signedIn: null, notice: { kind: 'error', message: 'The two passwords differ.', code: 'passwords_differ', field: 'password-again' } });
  t.regex(d, /<title>Error: Sign up · Obscura<\/title>/);
  t.regex(d, /role="alert" aria-labelledby="error-summary">[\s\S]*<a href="#password-again">The two passwords differ\.<\/a>/);
});

test('the home page says what is kept and what is not', (t) => {
  const limits = { fileMaxBytes: 2 * 1024 ** 3, sessionMaxFiles: 20, expiryDefault: '1d', expiryMax: '7d' };
  const out = doc(homeView({ signedIn: false, signUpOpen: true, limits }), { signedIn: null });
  checkDocument(t, out, 'home');
  t.regex(out, /<section id="privacy"/);
  for (const s of ['2 GiB', '20 files', '1 day', '7 days', 'argon2id', 'HMAC', 'No IP addresses, file names or passphrases', 'JavaScript']) t.true(out.includes(s), s);
  for (const p of ['/hide', '/reveal', '/analyse', '/convert', '/sign-in', '/sign-up']) t.true(out.includes(`href="${p}"`), p);
  const closed = doc(homeView({ signedIn: false, signUpOpen: false, limits }), { signedIn: null });
  t.false(closed.includes('<a class="button" href="/sign-up"'));
  const signedIn = doc(homeView({ signedIn: true, signUpOpen: true, limits }));
  checkDocument(t, signedIn, 'home signed in');
  t.false(signedIn.includes('id="start"'));
});

test('sign in: two forms, the e-mail refilled and escaped, no password refilled', (t) => {
  const out = doc(signInView({ csrf: CSRF, email: `"${EVIL}`, mail: false }), { signedIn: null });
  checkDocument(t, out, 'sign in');
  const forms = [...out.matchAll(/<form method="post" action="\/sign-in"[\s\S]*?<\/form>/g)].map((m) => m[0]);
  t.is(forms.length, 2);
  t.regex(forms[0], /name="method" value="password"/);
  t.regex(control(out, 'email'), /type="email"[^>]*name="email"[^>]*autocomplete="username"[^>]*value="&quot;&lt;img src=x onerror=1&gt;"/);
  t.regex(control(out, 'password'), /type="password"[^>]*name="password"[^>]*autocomplete="current-password"/);
  t.regex(forms[0], /<button type="submit">Sign in<\/button>/);
  t.regex(forms[1], /name="method" value="key"/);
  t.regex(control(out, 'api-key'), /type="password"[^>]*name="api_key"[^>]*autocomplete="off"/);
  t.regex(forms[1], /<button type="submit">Sign in with key<\/button>/);
  t.false(out.includes(EVIL));
});

test('sign up: open, closed, and the mail-sent page', (t) => {
  const open = doc(signUpView({ csrf: CSRF, open: true, email: EVIL, minPassword: 12 }), { signedIn: null });
  checkDocument(t, open, 'sign up');
  t.regex(open, /<form method="post" action="\/sign-up"/);
  t.regex(control(open, 'password'), /name="password"[^>]*autocomplete="new-password"[^>]*minlength="12"/);
  t.regex(control(open, 'password-again'), /name="password_again"/);
  t.regex(open, /<button type="submit">Create account<\/button>/);
  t.regex(open, /verification link/);
  t.false(open.includes(EVIL));

  const closed = doc(signUpView({ csrf: CSRF, open: false, minPassword: 12 }), { signedIn: null });
  checkDocument(t, closed, 'sign up closed');
  t.true(closed.includes('Sign-up is closed on this service: it sends no mail. The operator adds accounts with the command line.'));
  t.notRegex(closed, /<form[^>]*action="\/sign-up"/, 'no sign-up form (the language chooser is the only form)');

  const sent = doc(signUpSentView({ email: EVIL }), { signedIn: null });
  checkDocument(t, sent, 'sent');
  t.true(sent.includes('&lt;img src=x onerror=1&gt;'));
  t.false(sent.includes(EVIL));
  t.regex(sent, /expires/);
});

test('verify: confirm posts the token after the csrf field; done and invalid link to the account', (t) => {
  const confirm = doc(verifyView({ csrf: CSRF, token: 'tok"en', state: 'confirm' }), { signedIn: null });
  checkDocument(t, confirm, 'verify confirm');
  t.regex(confirm, /<form method="post" action="\/verify"[^>]*>\s*<input type="hidden" name="csrf"[^>]*>\s*<input type="hidden" name="token" value="tok&quot;en">/);
  t.regex(confirm, /<button type="submit">Verify my address<\/button>/);
  const done = doc(verifyView({ csrf: CSRF, token: '', state: 'done' }));
  checkDocument(t, done, 'verify done');
  t.regex(done, /Your address is verified[\s\S]*href="\/account"/);
  const invalid = doc(verifyView({ csrf: CSRF, token: '', state: 'invalid' }));
  checkDocument(t, invalid, 'verify invalid');
  t.true(invalid.includes('This link is not valid: it was used, it expired, or it was cut short.'));
  t.regex(invalid, /href="\/account"/);
  t.notRegex(invalid, /action="\/verify"/);
});

test('account: the new key once, the keys and their states, revoke only the active ones', (t) => {
  const now = Date.now();
  const keys = [
    { id: 'k1', shown: 'sw_abcd…wxyz', createdAt: Date.UTC(2026, 0, 2, 3, 4), expiresAt: null, revokedAt: null },
    { id: 'k2', shown: `sw_${EVIL}`, createdAt: Date.UTC(2026, 0, 1), expiresAt: null, revokedAt: now - 1000 },
    { id: 'k3', shown: 'sw_old…', createdAt: Date.UTC(2025, 5, 1), expiresAt: now - 1000, revokedAt: null },
    { id: 'k4', shown: 'sw_later…', createdAt: Date.UTC(2026, 0, 3), expiresAt: Date.UTC(2099, 11, 31, 23, 59), revokedAt: null },
  ];
  const out = doc(accountView({ csrf: CSRF, email: EVIL, verified: false, keys, sessions: [], newKey: 'sw_NEWKEY<1>', resendable: true }), { signedIn: { email: EVIL } });
  checkDocument(t, out, 'account');
  t.regex(out, /<(code|output) id="new-key"[^>]*>sw_NEWKEY&lt;1&gt;<\/(code|output)>/);
  t.regex(out, /will not be shown again/);
  t.regex(out, /not verified/);
  t.regex(out, /<form method="post" action="\/account\/verify-mail"[^>]*>[\s\S]*?Send the link again/);
  t.true(out.includes('2026-01-02 03:04 UTC'));
  t.true(out.includes('2099-12-31 23:59 UTC'));
  const revokes = [...out.matchAll(/action="\/account\/keys\/revoke"[^>]*>[\s\S]*?name="key_id" value="([^"]+)"[\s\S]*?Revoke<\/button>/g)].map((m) => m[1]);
  t.deepEqual(revokes, ['k1', 'k4']);
  t.regex(out, /state-revoked">revoked</);
  t.regex(out, /state-expired">expired</);
  t.is((out.match(/state-active">active</g) ?? []).length, 2);
  t.regex(out, /<form method="post" action="\/account\/keys"[^>]*>[\s\S]*?Create a key/);
  t.false(out.includes(EVIL));

  const plain = doc(accountView({ csrf: CSRF, email: 'ada@example.org', verified: true, keys: [], sessions: [], resendable: true }));
  checkDocument(t, plain, 'account verified');
  t.notRegex(plain, /id="new-key"|verify-mail/);
  const noResend = doc(accountView({ csrf: CSRF, email: 'a@b.c', verified: false, keys: [], sessions: [], resendable: false }));
  t.notRegex(noResend, /verify-mail/);
});

test('account: the web sessions with when, network and way in; "End" for the others, none for this browser', (t) => {
  const sessions = [
    { id: `x"${EVIL}`, openedAt: Date.UTC(2026, 0, 2, 3, 4), seenAt: Date.UTC(2026, 0, 2, 5, 6), network: 'onion' as const, method: 'key' as const, current: false },
    { id: 'mine', openedAt: Date.UTC(2026, 0, 1), seenAt: Date.UTC(2026, 0, 1), network: 'clearnet' as const, method: 'password' as const, current: true },
    { id: 'l', openedAt: Date.UTC(2026, 0, 1), seenAt: Date.UTC(2026, 0, 1), network: 'i2p' as const, method: 'link' as const, current: false },
  ];
  const out = doc(accountView({ csrf: CSRF, email: 'ada@example.org', verified: true, keys: [], sessions, resendable: false }));
  checkDocument(t, out, 'account sessions');
  const rows = [...out.matchAll(/<tr class="session">[\s\S]*?<\/tr>/g)].map((m) => m[0]);
  t.is(rows.length, 3);
  t.regex(rows[0], /2026-01-02 03:04 UTC[\s\S]*2026-01-02 05:06 UTC[\s\S]*<td>Tor onion<\/td>\s*<td>API key<\/td>/);
  t.regex(rows[0], /action="\/account\/sessions\/end"[\s\S]*name="session" value="x&quot;&lt;img src=x onerror=1&gt;"/);
  t.regex(rows[1], /this browser[\s\S]*<td>web<\/td>\s*<td>password<\/td>/);
  t.notRegex(rows[1], /<form/);
  t.regex(rows[2], /<td>I2P<\/td>\s*<td>mailed link<\/td>/);
  t.regex(out, /action="\/account\/sessions\/end-others"[\s\S]*End all other sessions/);
  t.false(out.includes(EVIL));
  const alone = doc(accountView({ csrf: CSRF, email: 'ada@example.org', verified: true, keys: [], sessions: [sessions[1]], resendable: false }));
  t.notRegex(alone, /end-others/);
});

test('the mailed links: sign in by mail, forgot, reset, sign-in link and refusal pages', (t) => {
  const signIn = doc(signInView({ csrf: CSRF, email: `"${EVIL}`, mail: true }), { signedIn: null });
  checkDocument(t, signIn, 'sign in with mail');
  t.regex(signIn, /<form method="post" action="\/sign-in\/mail"[\s\S]*?id="link-email"[^>]*value="&quot;&lt;img src=x onerror=1&gt;"[\s\S]*?Mail me a sign-in link/);
  t.regex(signIn, /href="\/forgot"/);
  const forgot = doc(forgotView({ csrf: CSRF, email: EVIL }), { signedIn: null });
  checkDocument(t, forgot, 'forgot');
  t.regex(forgot, /<form method="post" action="\/forgot"[^>]*>\s*<input type="hidden" name="csrf"/);
  const sent = doc(linkSentView({ email: EVIL }), { signedIn: null });
  checkDocument(t, sent, 'link sent');
  t.regex(sent, /If <strong class="email">&lt;img src=x onerror=1&gt;<\/strong> has an account here/);
  const reset = doc(resetView({ csrf: CSRF, token: 'tok"en', minPassword: 12, state: 'form' }), { signedIn: null });
  checkDocument(t, reset, 'reset');
  t.regex(reset, /<form method="post" action="\/reset"[^>]*>\s*<input type="hidden" name="csrf"[^>]*>\s*<input type="hidden" name="token" value="tok&quot;en">/);
  t.regex(reset, /name="password_again"[^>]*minlength="12"/);
  const dead = doc(resetView({ csrf: CSRF, token: '', minPassword: 12, state: 'invalid' }), { signedIn: null });
  checkDocument(t, dead, 'reset invalid');
  t.notRegex(dead, /action="\/reset"/);
  const link = doc(signInLinkView({ csrf: CSRF, token: 'tok"en', state: 'confirm' }), { signedIn: null });
  checkDocument(t, link, 'sign-in link');
  t.regex(link, /action="\/sign-in\/link"[\s\S]*value="tok&quot;en"[\s\S]*Sign me in/);
  for (const state of ['confirm', 'done', 'invalid'] as const) {
    const refuse = doc(refuseView({ csrf: CSRF, token: 'tok"en', state }), { signedIn: null });
    checkDocument(t, refuse, `refuse ${state}`);
    t.is(/action="\/refuse"/.test(refuse), state === 'confirm', state);
  }
});

test('the four product forms: names, order, labels and hints', (t) => {
  const buttons: Record<Product, string> = { hide: 'Hide', reveal: 'Reveal', analyse: 'Analyse', convert: 'Convert' };
  const names: Record<Product, string[]> = {
    hide: ['csrf', 'secret', 'cover', 'password', 'decoy', 'decoy_password', 'output_format', 'expiry'],
    reveal: ['csrf', 'file', 'password', 'expiry'],
    analyse: ['csrf', 'files', 'forensic_depth', 'face_sensitivity', 'face_detection', 'text_detection', 'tips', 'expiry'],
    convert: ['csrf', 'files', 'image_format', 'video_format', 'quality', 'width', 'height', 'fit', 'upscale', 'lossless', 'redact', 'redact', 'redact_style', 'expiry'],
  };
  for (const product of ['hide', 'reveal', 'analyse', 'convert'] as const) {
    const out = doc(productFormView(product, { csrf: CSRF, values: {}, limits: LIMITS }));
    checkDocument(t, out, product);
    const form = new RegExp(`<form method="post" action="/${product}" enctype="multipart/form-data"[^>]*>([\\s\\S]*?)</form>`).exec(out);
    t.truthy(form, product);
    const fieldNames = [...form![1].matchAll(/<(?:input|select|textarea)\b[^>]*\sname="([^"]+)"/g)].map((m) => m[1]);
    t.deepEqual(fieldNames, names[product], product);
    t.regex(form![1], new RegExp(`<button type="submit">${buttons[product]}</button>\\s*</div>\\s*$`), product);
    t.true(out.includes('2 GiB'), `${product}: size`);
    if (product !== 'reveal') t.true(out.includes('20 files'), `${product}: count`); // reveal takes one file
    // the file inputs point at their hint
    for (const tag of tags(form![1]).filter((x) => /type="file"/.test(x))) {
      const hint = attr(tag, 'aria-describedby');
      t.truthy(hint && out.includes(`id="${hint}"`), `${product}: ${tag}`);
    }
    t.regex(control(out, 'expiry'), /name="expiry"/);
    t.true(out.includes('<label for="expiry">Keep the results for</label>'));
    t.is(selectedValue(out, 'expiry'), '', `${product}: expiry default`);
  }
  const hide = doc(productFormView('hide', { csrf: CSRF, values: {}, limits: LIMITS }));
  t.regex(control(hide, 'secret'), /type="file"[^>]*name="secret"[^>]*multiple/);
  t.notRegex(control(hide, 'cover'), /multiple/);
  t.regex(control(hide, 'password'), /type="password"[^>]*required[^>]*autocomplete="new-password"/);
  t.true(hide.includes('<label for="password">Passphrase</label>'));
  t.regex(hide, /cannot be recovered/);
  t.regex(hide, /<option value="" selected>Automatic \(PNG for an image cover, MKV for a video\)<\/option>/);
  for (const f of ['png', 'webp', 'tiff', 'mkv', 'avi']) t.regex(hide, new RegExp(`<option value="${f}">`));
  const reveal = doc(productFormView('reveal', { csrf: CSRF, values: {}, limits: LIMITS }));
  t.regex(control(reveal, 'password'), /autocomplete="off"/);
  t.true(reveal.includes('<label for="file">File to reveal from</label>'));
  const analyse = doc(productFormView('analyse', { csrf: CSRF, values: {}, limits: LIMITS }));
  t.is(selectedValue(analyse, 'face-sensitivity'), 'medium');
  t.is(selectedValue(analyse, 'forensic-depth'), 'standard');
  for (const id of ['face-detection', 'text-detection', 'tips']) t.true(checked(analyse, id), id);
  t.regex(analyse, /absent box as/);
  const convert = doc(productFormView('convert', { csrf: CSRF, values: {}, limits: LIMITS }));
  for (const id of ['upscale', 'lossless', 'redact-faces', 'redact-text']) t.false(checked(convert, id), id);
  t.regex(control(convert, 'redact-faces'), /name="redact" value="faces"/);
  t.regex(control(convert, 'redact-text'), /name="redact" value="text"/);
  t.is(selectedValue(convert, 'fit'), 'inside');
  t.is(selectedValue(convert, 'redact-style'), 'blur');
  t.regex(convert, /<option value="" selected>— \(no images\)<\/option>/);
  t.regex(convert, /<option value="" selected>— \(no videos\)<\/option>/);
  t.regex(control(convert, 'quality'), /type="number"[^>]*min="1" max="100"/);
});

test('the expiry choices stop at the longest the service allows', (t) => {
  const out = doc(productFormView('reveal', { csrf: CSRF, values: {}, limits: { ...LIMITS, expiryMax: '1d' } }));
  const start = out.indexOf(control(out, 'expiry'));
  const options = [...out.slice(start, out.indexOf('</select>', start)).matchAll(/<option value="([^"]*)"/g)].map((m) => m[1]);
  t.deepEqual(options, ['', '1h', '6h', '1d']);
  const all = doc(productFormView('reveal', { csrf: CSRF, values: {}, limits: LIMITS }));
  t.regex(all, /<option value="7d">7 days<\/option>/);
});

test('a form shown again after an error keeps what was entered, except passwords', (t) => {
  const hide = doc(productFormView('hide', { csrf: CSRF, values: { password: 'hunter2-secret', output_format: 'webp', expiry: '3d' }, limits: LIMITS }));
  checkDocument(t, hide, 'hide refilled');
  t.false(hide.includes('hunter2-secret'));
  t.is(selectedValue(hide, 'output-format'), 'webp');
  t.is(selectedValue(hide, 'expiry'), '3d');

  const reveal = doc(productFormView('reveal', { csrf: CSRF, values: { password: 'hunter2-secret' }, limits: LIMITS }));
  t.false(reveal.includes('hunter2-secret'));

  const analyse = doc(productFormView('analyse', { csrf: CSRF, values: { forensic_depth: 'deep', face_sensitivity: 'high', text_detection: 'true', expiry: '6h' }, limits: LIMITS }));
  checkDocument(t, analyse, 'analyse refilled');
  t.is(selectedValue(analyse, 'forensic-depth'), 'deep');
  t.is(selectedValue(analyse, 'face-sensitivity'), 'high');
  t.false(checked(analyse, 'face-detection'));
  t.true(checked(analyse, 'text-detection'));
  t.false(checked(analyse, 'tips'));
  t.is(selectedValue(analyse, 'expiry'), '6h');

  const values = { image_format: 'webp', video_format: 'mkv', quality: '80', width: '"><b>1', height: '600', fit: 'cover', upscale: 'true', lossless: 'false', redact: ['faces', 'text'], redact_style: 'fill', expiry: '1h' };
  const convert = doc(productFormView('convert', { csrf: CSRF, values, limits: LIMITS }));
  checkDocument(t, convert, 'convert refilled');
  t.is(selectedValue(convert, 'image-format'), 'webp');
  t.is(selectedValue(convert, 'video-format'), 'mkv');
  t.regex(control(convert, 'quality'), /value="80"/);
  t.regex(control(convert, 'width'), /value="&quot;&gt;&lt;b&gt;1"/);
  t.regex(control(convert, 'height'), /value="600"/);
  t.is(selectedValue(convert, 'fit'), 'cover');
  t.true(checked(convert, 'upscale'));
  t.false(checked(convert, 'lossless'));
  t.true(checked(convert, 'redact-faces'));
  t.true(checked(convert, 'redact-text'));
  t.is(selectedValue(convert, 'redact-style'), 'fill');
  t.is(selectedValue(convert, 'expiry'), '1h');
  const one = doc(productFormView('convert', { csrf: CSRF, values: { redact: 'text' }, limits: LIMITS }));
  t.false(checked(one, 'redact-faces'));
  t.true(checked(one, 'redact-text'));
});

test('a running job: progress, and a link to look again; the page never reloads itself', (t) => {
  const out = doc(jobView({ job: job('analyse', 'processing', `Analysing ${EVIL}`) }));
  checkDocument(t, out, 'job');
  t.regex(out, /<label for="job-progress">[^<]*42 %<\/label>/);
  t.regex(out, /<progress id="job-progress" max="100" value="42">/);
  t.true(out.includes('This page does not reload itself'));
  t.regex(out, /<a href="\/job\/job_mJswO6O1vhIXmCoOX5wCYw">Check again<\/a>/);
  t.notRegex(out, /http-equiv="refresh"/);
  t.false(out.includes(EVIL));
  const queued = doc(jobView({ job: job('hide', 'queued', 'Waiting for a worker.') }));
  checkDocument(t, queued, 'queued');
  t.regex(queued, /value="0"/);
});

test('hide and reveal results: downloads, sizes, notes, expiry; a failure is an alert', (t) => {
  const files: ResultFile[] = [
    { n: 0, name: `${EVIL}.pdf`, mimeType: 'application/pdf', size: 1536, notes: [] },
    { n: 1, name: 'photo-mountain.jpg', outputName: 'photo-mountain.png', mimeType: 'image/png', size: 5_452_595, width: 1920, height: 1440, notes: ['The cover was converted to PNG so the hidden data survives.'] },
  ];
  const out = doc(stegoResultView({ job: job('hide', 'completed', 'Hid 1 file; the passphrase is weak: it is a common word.'), files }));
  checkDocument(t, out, 'hide result');
  t.regex(out, /<a href="\/job\/job_mJswO6O1vhIXmCoOX5wCYw\/file\/0" download>&lt;img src=x onerror=1&gt;\.pdf<\/a>/);
  t.regex(out, /href="\/job\/job_mJswO6O1vhIXmCoOX5wCYw\/file\/1" download>photo-mountain\.png</);
  t.true(out.includes('1.5 KiB'));
  t.true(out.includes('5.2 MiB'));
  t.true(out.includes('1920×1440'));
  t.true(out.includes('The cover was converted to PNG'));
  t.true(out.includes('2026-11-25 22:04 UTC'));
  t.true(out.includes('the passphrase is weak'));
  t.false(out.includes(EVIL));

  const failed = doc(stegoResultView({ job: job('reveal', 'failed', 'Nothing was found with this passphrase: it is wrong, or the file holds nothing.'), files: [] }));
  checkDocument(t, failed, 'reveal failed');
  t.regex(failed, /role="alert"><p>Nothing was found with this passphrase/);
  t.notRegex(failed, /\/file\//);
});

test('convert results list the outputs and the files that failed', (t) => {
  const out = doc(
    convertResultView({
      job: job('convert', 'partial', 'Converted 1 of 2 files.'),
      files: [{ n: 0, name: 'photo-mountain.jpg', outputName: 'photo-mountain.webp', mimeType: 'image/webp', size: 200_000, width: 800, height: 600, notes: ['Redacted 1 face.'] }],
      failed: [{ name: EVIL, error: 'unsupported_media', message: 'The file is not an image or a video this service recognises.' }],
    }),
  );
  checkDocument(t, out, 'convert result');
  t.regex(out, /href="\/job\/job_mJswO6O1vhIXmCoOX5wCYw\/file\/0" download>photo-mountain\.webp</);
  t.regex(out, /Files that could not be converted[\s\S]*&lt;img src=x onerror=1&gt;[\s\S]*not an image or a video[\s\S]*unsupported_media/);
  t.true(out.includes('Redacted 1 face.'));
  t.false(out.includes(EVIL));
});

/** The part of the report between a verdict's heading and the next one. */
function verdictSection(d: string, title: string): string {
  const start = d.indexOf(`<h4>${title}</h4>`);
  if (start < 0) throw new Error(`no verdict ${title}`);
  return d.slice(start, d.indexOf('</section>', start));
}

test('the analyse report of a real item: grade, reasons, findings by severity, verdicts, pictures', (t) => {
  const href = (id: string) => `/job/job_x/asset/${encodeURIComponent(id)}`;
  const out = doc(analyseReportView({ job: job('analyse', 'partial', 'Analysed 1 of 2 files; 1 could not be analysed.'), items: [ITEM, FAILED_ITEM], assetHref: href }));
  checkDocument(t, out, 'report');
  t.regex(out, /<h2 id="file-1">c2pa-ai-generated\.png<\/h2>/);
  t.regex(out, /<p class="grade grade-C">[\s\S]*C<\/p>/);
  t.true(out.includes('The file declares that it was made by a generative AI.'));
  // findings: medium before low before info, each with its tip
  const at = (s: string) => out.indexOf(s);
  t.true(at('sev-medium') > 0 && at('sev-medium') < at('sev-low') && at('sev-low') < at('sev-info'));
  t.notRegex(out, /sev-high/);
  t.true(out.includes('<strong>Tip:</strong> A declaration in metadata can be removed'));
  // the null verdict is "no answer", never clean
  const camera = verdictSection(out, 'Camera and encoder fingerprint');
  t.true(camera.includes(`<p class="no-answer">${NO_ANSWER}</p>`));
  t.notRegex(camera.replace(NO_ANSWER, ''), /clean|no indication|no_indication/i);
  // answered verdicts show their scalar fields
  const c2pa = verdictSection(out, 'C2PA provenance');
  t.false(c2pa.includes('no-answer">No answer'));
  t.regex(c2pa, /<dt>Claim generator<\/dt><dd>Google C2PA Core Generator Library<\/dd>/);
  t.regex(c2pa, /<dt>Trusted<\/dt><dd>no<\/dd>/);
  t.true(verdictSection(out, 'Video tampering').includes(NO_ANSWER), 'applicable: false');
  t.regex(out, /<dt>Steganography suspected<\/dt><dd>no<\/dd>/);
  t.regex(out, /<dt>Faces<\/dt><dd>0<\/dd>/);
  // pictures inline, from the given paths
  for (const a of ITEM.assets!) t.true(out.includes(`<img src="${href(a.asset_id)}" alt="`), a.category);
  t.regex(out, /alt="Error level analysis map, for the file c2pa-ai-generated.png"/, "what the picture is, and of which file");
  t.notRegex(out, /127\.0\.0\.1|download_url/);
  // the failed item
  t.regex(out, /<h2 id="file-2">broken\.jpg<\/h2>[\s\S]*could not be analysed: The file is not an image or a video/);
});

test('the report shows every missing answer as "no answer", never as 0, no or clean', (t) => {
  const item: AnalyseItem = {
    ...ITEM,
    name: `${EVIL}.png`,
    grade: 'F',
    face_count: null,
    text_region_count: null,
    watermark_flagged: null,
    steganography_suspected: null,
    verdicts: { ...ITEM.verdicts, forensic: { verdict: null, score: null }, hidden_content: { suspected: null, lsb: null }, watermark: null, findings: [{ detector: 'x', severity: 'medium', label: 'm' }, { detector: 'x', severity: 'high', label: EVIL, tip: EVIL }] },
  };
  const out = doc(analyseReportView({ job: job('analyse', 'completed', 'Analysed 1 file.'), items: [item], assetHref: (id) => `/a/${id}` }));
  checkDocument(t, out, 'report with nulls');
  t.false(out.includes(EVIL));
  t.regex(out, /grade grade-F/);
  for (const dt of ['Faces', 'Text regions', 'Watermark flagged', 'Steganography suspected']) {
    t.regex(out, new RegExp(`<dt>${dt}</dt><dd><span class="no-answer">no answer</span></dd>`), dt);
  }
  for (const title of ['Signs of editing (forensic analysis)', 'Hidden content (steganography)', 'Watermarks', 'Camera and encoder fingerprint']) {
    const s = verdictSection(out, title);
    t.true(s.includes(`<p class="no-answer">${NO_ANSWER}</p>`), title);
    t.notRegex(s.replace(NO_ANSWER, ''), /clean|>no<|>0</i, title);
  }
  t.true(out.indexOf('sev-high') < out.indexOf('sev-medium'));
});

test('error pages', (t) => {
  for (const [status, code, message] of [
    [404, 'not_found', 'There is no page at this address.'],
    [403, 'csrf', 'The form was too old or came from elsewhere.'],
    [429, 'rate_limited', `Too many tries ${EVIL}`],
    [500, 'internal', 'Something broke.'],
  ] as const) {
    const out = doc(errorView({ status, code, message }), { title: String(status), signedIn: null });
    checkDocument(t, out, `error ${status}`);
    t.true(out.includes(`(${status} ${code})`));
    t.regex(out, /<a href="\/">/);
    t.false(out.includes(EVIL));
  }
});

test('the stylesheet has what the views use and nothing from elsewhere', (t) => {
  const css = readFileSync(new URL('../src/http/web/static/obscura.css', import.meta.url), 'utf8');
  for (const sel of ['.grade-A', '.grade-B', '.grade-C', '.grade-D', '.grade-E', '.grade-F', '.sev-high', '.sev-medium', '.sev-low', '.sev-info', '.no-answer', 'progress', '@media', ':focus']) t.true(css.includes(sel), sel);
  t.regex(css, /max-width: 100%; height: auto/);
  t.notRegex(css, /@import|@font-face|url\(/i);
});
