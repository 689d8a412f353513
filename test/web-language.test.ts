// Choosing the pages' language: Accept-Language unless it is Tor Browser's spoofed value, the
// chooser on every page (a form: no script), kept in a session cookie; <html lang dir> follows.
import { startBrowser } from './helpers/browser.ts';
import { startMailCatcher } from './helpers/mail-catcher.ts';
import { startService, type RunningService } from './helpers/service.ts';
import { test } from './helpers/test.ts';
import path from 'node:path';
import { fromAcceptLanguage } from '../src/i18n/negotiate.ts';

const SHOTS = path.resolve(import.meta.dirname, '../test-output/web-language');

/** A browser reduced to its cookie jar: every cookie the service sets is sent back. */
class Jar {
  cookies = new Map<string, string>();
  setCookies: string[] = [];
  csrf = '';
  readonly base: string;
  constructor(base: string) {
    this.base = base;
  }

  async fetch(pathname: string, init: RequestInit & { headers?: Record<string, string> } = {}) {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(`${this.base}${pathname}`, { redirect: 'manual', ...init, headers: { ...(cookie ? { cookie } : {}), ...init.headers } });
    this.setCookies = res.headers.getSetCookie();
    for (const c of this.setCookies) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const body = await res.text();
    const token = /name="csrf" value="([^"]+)"/.exec(body)?.[1];
    if (token) this.csrf = token;
    return { status: res.status, headers: res.headers, body };
  }

  post(pathname: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
    return this.fetch(pathname, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams({ csrf: this.csrf, ...fields }).toString(),
    });
  }
}

const htmlTag = (body: string) => /<html[^>]*>/.exec(body)?.[0];

test('Accept-Language by its primary subtag; Tor Browser’s spoofed value, Traditional Chinese and nothing give English', (t) => {
  t.is(fromAcceptLanguage('fr-CH,fr;q=0.9'), 'fr');
  t.is(fromAcceptLanguage('pt-BR,pt;q=0.9,en;q=0.8'), 'pt');
  t.is(fromAcceptLanguage('es-419'), 'es');
  for (const zh of ['zh-CN', 'zh-Hans', 'zh-SG,zh;q=0.9', 'zh']) t.is(fromAcceptLanguage(zh), 'zh', zh);
  for (const zh of ['zh-TW', 'zh-Hant', 'zh-Hant-HK']) t.is(fromAcceptLanguage(zh), 'en', zh);
  t.is(fromAcceptLanguage('zh-TW,fa;q=0.5'), 'fa', 'Traditional Chinese is skipped, the next is taken');
  t.is(fromAcceptLanguage('de-DE,ar;q=0.7,ru;q=0.8'), 'ru', 'by q-value, an unoffered language skipped');
  t.is(fromAcceptLanguage('ar;q=0,fr'), 'fr', 'q=0 is "not this one"');
  for (const tor of ['en-US,en;q=0.5', 'en-US,en', 'en-US, en;q=0.5']) t.is(fromAcceptLanguage(tor), 'en', tor);
  for (const none of [undefined, '', '*', 'de', 'xx-yy;q=1']) t.is(fromAcceptLanguage(none), 'en', String(none));
});

test('without a choice: fr-CH gives French, Tor Browser’s value English; the pages vary on Accept-Language', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const fr = await new Jar(svc.url.onion).fetch('/', { headers: { 'accept-language': 'fr-CH,fr;q=0.9' } });
  t.is(fr.status, 200);
  t.is(htmlTag(fr.body), '<html lang="fr">');
  t.is(fr.headers.get('content-language'), 'fr');
  t.regex(fr.headers.get('vary') ?? '', /Accept-Language/i);
  t.regex(fr.body, /<option value="fr" lang="fr" selected>Français<\/option>/);
  const tor = await new Jar(svc.url.onion).fetch('/', { headers: { 'accept-language': 'en-US,en;q=0.5' } });
  t.is(htmlTag(tor.body), '<html lang="en">');
  const fa = await new Jar(svc.url.onion).fetch('/sign-in', { headers: { 'accept-language': 'fa-IR,fa;q=0.9' } });
  t.is(htmlTag(fa.body), '<html lang="fa" dir="rtl">');
  // the API stays English whatever the browser says
  const api = await fetch(`${svc.url.onion}/api/nothing-here`, { headers: { 'accept-language': 'fr' } });
  t.like(await api.json(), { error: 'not_found' });
  t.is(api.headers.get('content-language'), null);
});

async function choose(svc: RunningService, network: 'clearnet' | 'onion' = 'clearnet') {
  const jar = new Jar(svc.url[network]);
  const home = await jar.fetch('/sign-in', { headers: { 'accept-language': 'en-US,en;q=0.5' } });
  t_assert(home.body.includes('action="/language"'), 'the chooser is on the page');
  return jar;
}
function t_assert(ok: boolean, what: string) {
  if (!ok) throw new Error(what);
}

test('POST /language sets a session cookie and sends back; every page is then in that language, <html lang="ar" dir="rtl">', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const jar = await choose(svc);
  const r = await jar.post('/language', { lang: 'ar', back: '/sign-in?x=1' }, { 'accept-language': 'en-US,en;q=0.5' });
  t.is(r.status, 303);
  t.is(r.headers.get('location'), '/sign-in?x=1');
  t.deepEqual(
    jar.setCookies.filter((c) => c.startsWith('obscura_lang=')),
    ['obscura_lang=ar; Path=/; HttpOnly; SameSite=Strict'],
    'a session cookie: no Max-Age, no Expires, not Secure over http',
  );
  for (const page of ['/sign-in', '/', '/sign-up', '/language', '/forgot']) {
    const p = await jar.fetch(page, { headers: { 'accept-language': 'fr' } });
    t.is(htmlTag(p.body), '<html lang="ar" dir="rtl">', page);
    t.regex(p.body, /<option value="ar" lang="ar" dir="rtl" selected>العربية<\/option>/, page);
    if (page !== '/language') t.true(p.body.includes(`<input type="hidden" name="back" value="${page}">`), `${page}: the chooser comes back here`);
  }
  // and back again; the choice wins over Accept-Language
  await jar.post('/language', { lang: 'zh', back: '/' });
  const zh = await jar.fetch('/', { headers: { 'accept-language': 'ru' } });
  t.is(htmlTag(zh.body), '<html lang="zh-Hans">');
});

test('GET /language lists every language in its own script, as buttons of one form', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const jar = new Jar(svc.url.clearnet);
  const page = await jar.fetch('/language?back=/hide');
  t.is(page.status, 200);
  const form = /<form method="post" action="\/language" class="stack languages">([\s\S]*?)<\/form>/.exec(page.body)?.[1] ?? '';
  t.regex(form, /^\s*<input type="hidden" name="csrf"[^>]*>\s*<input type="hidden" name="back" value="\/hide">/);
  const buttons = [...form.matchAll(/<button type="submit" name="lang" value="([a-z]+)" lang="([^"]+)"[^>]*>([^<]+)<\/button>/g)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
  t.deepEqual(buttons, ['en en English', 'es es Español', 'fr fr Français', 'pt pt Português', 'ru ru Русский', 'ar ar العربية', 'fa fa فارسی', 'zh zh-Hans 简体中文']);
  const offsite = await jar.fetch('/language?back=//evil.example/');
  t.regex(offsite.body, /name="back" value="\/"/, 'an off-site back is not carried');
  const chosen = await jar.post('/language', { lang: 'pt', back: '/hide' });
  t.is(chosen.status, 303);
  t.is(chosen.headers.get('location'), '/hide');
});

test('a bad language or an off-site back is a 400 page, and sets nothing', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const jar = await choose(svc);
  for (const [fields, code] of [
    [{ lang: 'de', back: '/' }, 'invalid_language'],
    [{ lang: '', back: '/' }, 'invalid_language'],
    [{ lang: 'zh-Hant', back: '/' }, 'invalid_language'],
    [{ lang: 'fr', back: '//evil.example/' }, 'invalid_back'],
    [{ lang: 'fr', back: 'https://evil.example/' }, 'invalid_back'],
    [{ lang: 'fr', back: '/\\evil.example' }, 'invalid_back'],
    [{ lang: 'fr', back: '/a b' }, 'invalid_back'],
    [{ lang: 'fr', back: 'sign-in' }, 'invalid_back'],
  ] as const) {
    const r = await jar.post('/language', fields);
    t.is(r.status, 400, JSON.stringify(fields));
    t.regex(r.headers.get('content-type')!, /^text\/html/);
    t.regex(r.body, new RegExp(`\\(400 ${code}\\)`), JSON.stringify(fields));
    t.is(r.headers.get('location'), null);
    t.false(jar.cookies.has('obscura_lang'), JSON.stringify(fields));
  }
  // a forged form (no token) is refused like every other
  const forged = await jar.post('/language', { lang: 'fr', back: '/', csrf: '' });
  t.is(forged.status, 403);
  t.false(jar.cookies.has('obscura_lang'));
});

test('on an https origin the language cookie is Secure too', async (t) => {
  const svc = await startService({ OBSCURA_CLEARNET_ORIGIN: 'https://media.example.org' });
  t.teardown(() => svc.close());
  const jar = await choose(svc);
  const r = await jar.post('/language', { lang: 'ru', back: '/' });
  t.is(r.status, 303);
  t.true(jar.setCookies.includes('obscura_lang=ru; Path=/; HttpOnly; SameSite=Strict; Secure'), jar.setCookies.join(' | '));
});

test('a person picks Arabic on the home page with JavaScript off: the chooser works with the keyboard alone', async (t) => {
  t.timeout(120_000);
  const svc = await startService();
  const b = await startBrowser({ shotsDir: SHOTS });
  t.teardown(async () => {
    await b.close();
    await svc.close();
  });
  const { page } = b;
  await page.goto(`${svc.url.clearnet}/`);
  t.is(await page.getAttribute('html', 'lang'), 'en');
  // Tab reaches the select (after the skip link, the brand and the nav), the arrow keys choose,
  // Tab and Enter send: no mouse, no script
  let tabs = 0;
  while ((await page.locator('#lang-choice:focus').count()) === 0 && tabs < 20) {
    await page.keyboard.press('Tab');
    tabs++;
  }
  t.is(await page.locator('#lang-choice:focus').count(), 1, `focus reached the chooser after ${tabs} tabs`);
  t.is(await page.locator('label[for="lang-choice"]').textContent(), 'Language');
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowDown'); // en es fr pt ru ar
  t.is(await page.inputValue('#lang-choice'), 'ar');
  await page.keyboard.press('Tab');
  t.is(await page.locator('form.lang-choice button:focus').count(), 1);
  await page.keyboard.press('Enter');
  await page.waitForURL(`${svc.url.clearnet}/`);
  await page.waitForSelector('html[lang="ar"][dir="rtl"]');
  t.is(await page.getAttribute('html', 'dir'), 'rtl');
  await b.shot('home-ar');
  // kept for the session: the next page too
  await page.goto(`${svc.url.clearnet}/sign-in`);
  t.is(await page.getAttribute('html', 'lang'), 'ar');
  t.is(await page.inputValue('#lang-choice'), 'ar');
});

// Issue 27: the mail goes out in the language the page was in when it was asked for, whatever
// the language later pages are in; without a choice (Tor Browser's Accept-Language) it is English.
test('the verification mail is in the language chosen when the sign-up was sent', async (t) => {
  const mail = await startMailCatcher();
  const svc = await startService({ OBSCURA_SMTP_URL: mail.url });
  t.teardown(async () => {
    await svc.close();
    await mail.close();
  });
  const password = 'a long enough password';
  const tor = { 'accept-language': 'en-US,en;q=0.5' };
  for (const [lang, email] of [['fr', 'lectrice@example.org'], ['ar', 'qari@example.org'], [null, 'reader@example.org']] as const) {
    const jar = new Jar(svc.url.onion);
    await jar.fetch('/sign-up', { headers: tor });
    if (lang) t.is((await jar.post('/language', { lang, back: '/sign-up' }, tor)).status, 303);
    const page = await jar.fetch('/sign-up', { headers: tor });
    t.is(htmlTag(page.body), lang === 'ar' ? '<html lang="ar" dir="rtl">' : `<html lang="${lang ?? 'en'}">`);
    t.is((await jar.post('/sign-up', { email, password, password_again: password }, tor)).status, 200);
    // the next page in another language: the mail keeps the one it was asked in
    if (lang) await jar.post('/language', { lang: 'zh', back: '/' }, tor);
    const letter = await mail.next(email);
    const want = { fr: /^Quelqu’un a demandé à créer un compte Obscura/, ar: /[\u0600-\u06ff]/, en: /^Someone asked to create an Obscura account/ }[lang ?? 'en'];
    t.regex(letter.subject ?? '', want, `${lang}: ${letter.subject}`);
    t.regex(letter.text ?? '', /\/verify\?token=[A-Za-z0-9_-]{43}/, 'the link is in it, whatever the language');
  }
});
