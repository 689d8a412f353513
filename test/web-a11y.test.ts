// The accessibility audit: every page a person can reach, in English and in Arabic (chosen with
// the chooser, POST /language), checked by axe-core for WCAG 2.0/2.1/2.2 A and AA with no serious
// or critical violation; the main pages at a phone's width in Arabic, Chinese and Spanish, with
// no text wider than its box, written out as screenshots. The pages carry no script: axe runs in
// a second browser context that is handed each document as the service sent it.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PHONE_VIEWPORT, startBrowser } from './helpers/browser.ts';
import { startAuditor } from './helpers/audit.ts';
import { startMailCatcher } from './helpers/mail-catcher.ts';
import { startService } from './helpers/service.ts';
import { test } from './helpers/test.ts';
import { until } from './helpers/until.ts';
import { translator } from '../src/i18n/format.ts';
import type { Lang } from '../src/i18n/languages.ts';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const SHOTS = path.resolve(import.meta.dirname, '../test-output/web-i18n');
const PASSWORD = 'correct horse battery staple';
const SECRET = 'four random words here';

/** A browser reduced to its cookie jar and the CSRF token of the last page. */
class Jar {
  cookies = new Map<string, string>();
  csrf = '';
  readonly base: string;
  constructor(base: string) {
    this.base = base;
  }
  async fetch(pathname: string, init: RequestInit = {}) {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(new URL(pathname, this.base), { redirect: 'manual', ...init, headers: { ...(cookie ? { cookie } : {}), ...(init.headers as Record<string, string>) } });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const body = await res.text();
    const token = /name="csrf" value="([^"]+)"/.exec(body)?.[1];
    if (token) this.csrf = token;
    return { status: res.status, location: res.headers.get('location'), body, url: new URL(pathname, this.base).href };
  }
  get = (p: string) => this.fetch(p);
  post(p: string, fields: Record<string, string>, csrf = this.csrf) {
    return this.fetch(p, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, ...fields }).toString() });
  }
  multipart(p: string, fields: [string, string | { file: string; name?: string } | { bytes: Buffer; name: string }][]) {
    const form = new FormData();
    form.append('csrf', this.csrf);
    for (const [k, v] of fields) {
      if (typeof v === 'string') form.append(k, v);
      else if ('file' in v) form.append(k, new Blob([readFileSync(v.file)]), v.name ?? path.basename(v.file));
      else form.append(k, new Blob([v.bytes]), v.name);
    }
    return this.fetch(p, { method: 'POST', body: form });
  }
  async language(lang: string) {
    await this.get('/language');
    const r = await this.post('/language', { lang, back: '/' });
    if (r.status !== 303) throw new Error(`POST /language answered ${r.status}`);
  }
}

interface Seen {
  name: string;
  url: string;
  status: number;
  body: string;
}

const linkIn = (text: string | undefined, pathname: string) => new RegExp(`(http://\\S+${pathname.replace('/', '\\/')}\\?token=[A-Za-z0-9_-]{43})`).exec(text ?? '')?.[1];

test('axe finds no serious or critical violation on any page, in English and in Arabic; at a phone’s width no text overflows, in Arabic, Chinese and Spanish', async (t) => {
  t.timeout(420_000);
  const mail = await startMailCatcher();
  const svc = await startService({ OBSCURA_SMTP_URL: mail.url, OBSCURA_DIRECT_UPLOAD_MAX: '8MiB' });
  t.teardown(async () => {
    await svc.close();
    await mail.close();
  });
  const base = svc.url.clearnet;
  const seen: Record<string, Seen[]> = {};
  const keep = (lang: string, name: string, r: { url: string; status: number; body: string }) => {
    t.true(r.body.startsWith('<!doctype html>'), `${lang} ${name} is a page (${r.status})`);
    (seen[lang] ??= []).push({ name, url: r.url, status: r.status, body: r.body });
  };

  // one person's jobs, shown in both languages: a job under way and done for each product
  const owner = new Jar(base);
  const { key } = await svc.account(`owner-${Date.now()}@example.org`);
  await owner.get('/sign-in');
  t.is((await owner.post('/sign-in', { method: 'key', api_key: key })).status, 303);
  const jobs: Record<string, { id: string; underWay: Record<string, Seen> }> = {};
  const start = async (product: string, fields: Parameters<Jar['multipart']>[1]) => {
    await owner.get(`/${product}`);
    const r = await owner.multipart(`/${product}`, fields);
    t.is(r.status, 303, `${product}: ${r.body.slice(0, 3000)}`);
    const id = /\/job\/([\w-]+)$/.exec(r.location ?? '')![1];
    // under way: shown at once, in both languages
    const underWay: Record<string, Seen> = {};
    for (const lang of ['en', 'ar']) {
      await owner.language(lang);
      const page = await owner.get(`/job/${id}`);
      underWay[lang] = { name: `job-${product}-first-look`, ...page };
    }
    jobs[product] = { id, underWay };
    return id;
  };
  const done = async (id: string) => until(`job ${id} ends`, 120_000, async () => (/id="job-progress"/.test((await owner.get(`/job/${id}`)).body) ? undefined : true));
  await start('convert', [['files', { file: path.join(FIXTURES, 'photo-mountain.jpg') }], ['image_format', 'webp']]);
  const hideId = await start('hide', [['secret', { file: path.join(FIXTURES, 'secret-small.png') }], ['cover', { file: path.join(FIXTURES, 'photo-mountain.jpg') }], ['password', SECRET]]);
  await start('analyse', [['files', { file: path.join(FIXTURES, 'c2pa-ai-generated.png') }]]);
  await done(hideId);
  const stego = Buffer.from(await (await fetch(`${base}/job/${hideId}/file/0`, { headers: { cookie: [...owner.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } })).arrayBuffer());
  await start('reveal', [['file', { bytes: stego, name: 'stego.png' }], ['password', SECRET]]);
  for (const { id } of Object.values(jobs)) await done(id);

  for (const lang of ['en', 'ar', 'zh', 'es']) {
    const full = lang === 'en' || lang === 'ar'; // every page; the other two for their screenshots
    // a visitor: the public pages, the forms' refusals, the error pages
    const v = new Jar(base);
    await v.language(lang);
    keep(lang, 'home', await v.get('/'));
    keep(lang, 'sign-up', await v.get('/sign-up'));
    if (full) {
      keep(lang, 'language', await v.get('/language'));
      keep(lang, 'sign-in', await v.get('/sign-in'));
      keep(lang, 'sign-in-refused', await v.post('/sign-in', { method: 'password', email: 'nobody@example.org', password: 'not this one' }));
      keep(lang, 'sign-in-key-refused', await v.post('/sign-in', { method: 'key', api_key: 'sw_nothing' }));
      await v.get('/sign-up');
      keep(lang, 'sign-up-refused', await v.post('/sign-up', { email: 'someone@example.org', password: PASSWORD, password_again: 'something else entirely' }));
      keep(lang, 'forgot', await v.get('/forgot'));
      keep(lang, 'verify-invalid', await v.get('/verify?token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'));
      keep(lang, 'reset-invalid', await v.get('/reset?token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'));
      keep(lang, 'sign-in-link-invalid', await v.get('/sign-in/link?token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'));
      keep(lang, 'refuse-invalid', await v.get('/refuse?token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'));
      keep(lang, 'error-400', await v.post('/language', { lang: 'xx', back: '/' }));
      keep(lang, 'error-403', await v.post('/sign-up', { email: 'a@example.org' }, 'not-the-token'));
      t.deepEqual(
        seen[lang].filter((s) => s.name.startsWith('error-')).map((s) => s.status),
        [400, 403],
      );
    }

    // a person: sign-up, the mail's links, the account, a key, recovery
    const p = new Jar(base);
    await p.language(lang);
    const email = `person-${lang}-${Date.now()}@example.org`;
    await p.get('/sign-up');
    const sent = await p.post('/sign-up', { email, password: PASSWORD, password_again: PASSWORD });
    t.is(sent.status, 200);
    const letter = await mail.next(email);
    if (full) {
      keep(lang, 'sign-up-sent', sent);
      const verify = linkIn(letter.text, '/verify')!;
      const refuse = linkIn(letter.text, '/refuse')!;
      keep(lang, 'verify', await p.get(verify));
      keep(lang, 'refuse', await p.get(refuse));
      keep(lang, 'verified', await p.post('/verify', { token: new URL(verify).searchParams.get('token')! }));
      keep(lang, 'verify-used', await p.get(verify));
      t.is(seen[lang].at(-1)!.status, 410);
      await p.get('/sign-in');
      t.is((await p.post('/sign-in', { method: 'password', email, password: PASSWORD })).status, 303);
      keep(lang, 'account', await p.get('/account'));
      keep(lang, 'account-new-key', await p.post('/account/keys', {}));
      for (const product of ['hide', 'reveal', 'analyse', 'convert']) keep(lang, `form-${product}`, await p.get(`/${product}`));
      await p.get('/convert');
      keep(lang, 'form-convert-refused', await p.multipart('/convert', [['files', { bytes: Buffer.from('not a picture'), name: 'x.png' }], ['quality', '500']]));
      await p.get('/hide');
      keep(lang, 'form-hide-refused', await p.multipart('/hide', [['password', SECRET]]));
      await p.get('/analyse');
      keep(lang, 'form-analyse-refused', await p.multipart('/analyse', [['files', { bytes: Buffer.alloc(9 * 1024 * 1024, 7), name: 'big.png' }]]));
      keep(lang, 'error-404-job', await p.get('/job/00000000-0000-0000-0000-000000000000'));
      const r = new Jar(base);
      await r.language(lang);
      await r.get('/forgot');
      keep(lang, 'forgot-sent', await r.post('/forgot', { email }));
      const resetLink = linkIn((await mail.next(email)).text, '/reset')!;
      keep(lang, 'reset', await r.get(resetLink));
      await r.get('/sign-in');
      keep(lang, 'sign-in-link-sent', await r.post('/sign-in/mail', { email }));
      keep(lang, 'sign-in-link', await r.get(linkIn((await mail.next(email)).text, '/sign-in/link')!));
    } else {
      const verify = linkIn(letter.text, '/verify')!;
      await p.get(verify);
      await p.post('/verify', { token: new URL(verify).searchParams.get('token')! });
    }

    // the jobs, under way and done
    await owner.language(lang);
    for (const [product, job] of Object.entries(jobs)) {
      if (full) keep(lang, `job-${product}-under-way`, { ...job.underWay[lang] });
      if (full || product === 'analyse' || product === 'convert') keep(lang, `job-${product}-done`, await owner.get(`/job/${job.id}`));
    }
    if (!full) keep(lang, 'form-convert', await owner.get('/convert'));
  }

  // the audit
  const cookies = [...owner.cookies].filter(([k]) => k !== 'obscura_lang').map(([name, value]) => ({ name, value, url: base }));
  const auditor = await startAuditor(cookies);
  t.teardown(() => auditor.close());
  const counts: Record<string, number> = {};
  const problems: string[] = [];
  const lesser: Record<string, number> = {};
  for (const lang of ['en', 'ar']) {
    for (const s of seen[lang]) {
      await auditor.show(s.url, s.body);
      t.regex(s.body, new RegExp(`<html lang="${lang}"${lang === 'ar' ? ' dir="rtl"' : ''}>`), `${lang} ${s.name}`);
      const all = await auditor.axe();
      for (const v of all) if (v.impact !== 'serious' && v.impact !== 'critical') lesser[`${v.id} (${v.impact})`] = (lesser[`${v.id} (${v.impact})`] ?? 0) + 1;
      const bad = all.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      for (const v of bad) counts[v.id] = (counts[v.id] ?? 0) + 1;
      for (const v of bad) problems.push(`${lang} ${s.name} (${s.url}): ${v.id} (${v.impact}): ${v.targets.join(' | ')}`);
    }
  }
  t.log(`${seen.en.length + seen.ar.length} pages audited; serious or critical by rule: ${JSON.stringify(counts)}; lesser: ${JSON.stringify(lesser)}`);
  t.deepEqual(problems, [], `axe, serious or critical:\n${problems.join('\n')}`);

  // a refused form says so in its title, sums the error up at the top with a link to the field,
  // and the field is marked invalid and described by its error
  for (const lang of ['en', 'ar'] as Lang[]) {
    const refused = seen[lang].filter((s) => s.name.endsWith('-refused'));
    // each refusal names the field it is about
    const FIELD: Record<string, string> = {
      'sign-in-refused': 'email',
      'sign-in-key-refused': 'api-key',
      'sign-up-refused': 'password-again',
      'form-convert-refused': 'quality',
      'form-hide-refused': 'secret',
      'form-analyse-refused': 'files',
    };
    t.deepEqual(refused.map((s) => s.name).sort(), Object.keys(FIELD).sort());
    const errorTitle = translator(lang)('form.errorTitle', { title: '' }).trim();
    for (const s of refused) {
      t.true(/<title>([^<]*)<\/title>/.exec(s.body)![1].startsWith(errorTitle), `${lang} ${s.name}: the title starts with “${errorTitle}”`);
      const summary = /<div class="notice notice-error" role="alert"[^>]*>([\s\S]*?)<\/div>/.exec(s.body)?.[1] ?? '';
      const field = /<a href="#([\w-]+)">/.exec(summary)?.[1];
      t.is(field, FIELD[s.name], `${lang} ${s.name}: the summary links to the field (${summary})`);
      const control = new RegExp(`<(input|select|textarea)[^>]*id="${field}"[^>]*>`).exec(s.body)?.[0] ?? '';
      t.regex(control, /aria-invalid="true"/, `${lang} ${s.name}`);
      const describedBy = /aria-describedby="([^"]*)"/.exec(control)?.[1].split(' ') ?? [];
      t.true(describedBy.includes(`${field}-error`), `${lang} ${s.name}: ${control}`);
      t.regex(s.body, new RegExp(`<p class="field-error" id="${field}-error">[^<]+</p>`), `${lang} ${s.name}`);
    }
  }

  // the report's pictures say what they are and which file they were made from
  for (const lang of ['en', 'ar']) {
    const report = seen[lang].find((s) => s.name === 'job-analyse-done')!.body;
    const alts = [...report.matchAll(/<img [^>]*alt="([^"]*)"/g)].map((m) => m[1]);
    t.true(alts.length >= 1, `${lang}: the report shows its pictures`);
    for (const alt of alts) t.true(alt.includes('c2pa-ai-generated.png') && alt.length > 'c2pa-ai-generated.png'.length + 3, `${lang}: alt="${alt}"`);
  }

  // the main pages at a phone's width: screenshots, and no text wider than its box
  const overflows: string[] = [];
  const MAIN = ['home', 'sign-up', 'form-convert', 'job-convert-done', 'job-analyse-done'];
  for (const lang of ['ar', 'zh', 'es']) {
    mkdirSync(path.join(SHOTS, lang), { recursive: true });
    for (const name of MAIN) {
      const s = seen[lang].find((x) => x.name === name)!;
      t.truthy(s, `${lang} ${name}`);
      await auditor.show(s.url, s.body, PHONE_VIEWPORT);
      t.regex(s.body, new RegExp(`<html lang="${lang === 'zh' ? 'zh-Hans' : lang}"${lang === 'ar' ? ' dir="rtl"' : ''}>`));
      t.is(await auditor.page.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.body).direction), lang === 'ar' ? 'rtl' : 'ltr');
      for (const o of await auditor.overflowing()) overflows.push(`${lang} ${name}: ${o}`);
      await auditor.page.screenshot({ path: path.join(SHOTS, lang, `${name}.png`), fullPage: true });
    }
  }
  t.deepEqual(overflows, [], `text wider than its box at ${PHONE_VIEWPORT.width} px:\n${overflows.join('\n')}`);
});

interface Stop {
  form: string | null;
  id: string;
  tag: string;
  top: number;
  left: number;
  outline: string;
}

/** Tabs through the whole page from its start, noting every stop: its form, its place and its focus outline. */
async function tabWalk(page: import('playwright-core').Page): Promise<Stop[]> {
  await page.evaluate(() => (globalThis as any).document.activeElement?.blur());
  const stops: Stop[] = [];
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    const s = await page.evaluate(() => {
      const g = globalThis as any;
      const el = g.document.activeElement;
      if (!el || el === g.document.body) return null;
      const r = el.getBoundingClientRect();
      const st = g.getComputedStyle(el);
      return {
        form: el.form ? `${el.form.getAttribute('action')}#${[...g.document.querySelectorAll(`form[action="${el.form.getAttribute('action')}"]`)].indexOf(el.form)}` : null,
        id: el.id || `${el.tagName.toLowerCase()}[${el.getAttribute('name') ?? el.getAttribute('href') ?? el.textContent.trim().slice(0, 20)}]`,
        tag: el.tagName.toLowerCase(),
        top: r.top + g.scrollY,
        left: r.left + g.scrollX,
        outline: `${st.outlineStyle} ${st.outlineWidth}`,
      };
    });
    if (!s || (stops.length && s.id === stops[0].id && s.top === stops[0].top)) break; // round again
    stops.push(s);
  }
  return stops;
}

/** The controls of a form a keyboard must reach, in the order of the page. */
async function controlsOf(page: import('playwright-core').Page, formSelector: string): Promise<string[]> {
  return page.$$eval(`${formSelector} :is(input:not([type=hidden]), select, textarea, button)`, (els) =>
    els.map((el: any) => el.id || `${el.tagName.toLowerCase()}[${el.getAttribute('name') ?? el.textContent.trim().slice(0, 20)}]`),
  );
}

test('every form with the keyboard alone, JavaScript off: Tab reaches each control in the order it is shown, with a visible focus, and Enter sends it', async (t) => {
  t.timeout(300_000);
  const mail = await startMailCatcher();
  const svc = await startService({ OBSCURA_SMTP_URL: mail.url, OBSCURA_DIRECT_UPLOAD_MAX: '8MiB' });
  const b = await startBrowser({ shotsDir: path.resolve(import.meta.dirname, '../test-output/web-keyboard') });
  t.teardown(async () => {
    await b.close();
    await svc.close();
    await mail.close();
  });
  const { page } = b;
  const base = svc.url.clearnet;
  const findings: string[] = [];

  /** The walk over a form: all its controls, in a row, in the page's order, each with a visible outline, placed in reading order. */
  const checkForm = async (where: string, formSelector: string) => {
    const want = await controlsOf(page, formSelector);
    t.true(want.length > 0 && /^button/.test(want.at(-1)!), `${where} ${formSelector}: ${JSON.stringify(want)}`);
    const stops = await tabWalk(page);
    const at = stops.findIndex((s) => s.id === want[0]);
    const got = at === -1 ? [] : stops.slice(at, at + want.length);
    if (JSON.stringify(got.map((s) => s.id)) !== JSON.stringify(want)) findings.push(`${where} ${formSelector}: Tab gave ${JSON.stringify(stops.map((s) => s.id))}, the form has ${JSON.stringify(want)}`);
    const rtl = (await page.getAttribute('html', 'dir')) === 'rtl';
    for (const [i, s] of got.entries()) {
      if (!/^(solid|auto|dashed|dotted|double) ([2-9]|\d\d)/.test(s.outline)) findings.push(`${where} ${s.id}: focus outline "${s.outline}"`);
      const prev = got[i - 1];
      if (!prev) continue;
      // (a row's controls line up within a few pixels: a button is taller than a select)
      const below = s.top > prev.top + 8;
      const sameRowAfter = Math.abs(s.top - prev.top) <= 8 && (rtl ? s.left < prev.left : s.left > prev.left);
      // a control lower on the page than the one before, or beside it in the reading direction
      if (!below && !sameRowAfter) findings.push(`${where} ${prev.id} → ${s.id}: not in the order shown (${prev.top},${prev.left} → ${s.top},${s.left})`);
    }
    return got;
  };
  /** Tab until `selector` has the focus; false when it never does. */
  const tabTo = async (selector: string) => {
    await page.evaluate(() => (globalThis as any).document.activeElement?.blur());
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press('Tab');
      if (await page.locator(`${selector}:focus`).count()) return true;
    }
    return false;
  };
  /** Enter, and the status of the form it sent to `path`, once the page it leads to has loaded. */
  const enterSends = async (path: string) => {
    const answer = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === path);
    const loaded = page.waitForEvent('load');
    await page.keyboard.press('Enter');
    const status = (await answer).status();
    await loaded;
    return status;
  };

  for (const lang of ['en', 'ar']) {
    await b.context.clearCookies();
    await page.goto(`${base}/language`);
    // the language page: a button per language; Enter on one chooses it
    await checkForm(`${lang} /language`, 'main form');
    t.true(await tabTo(`main button[value="${lang}"]`), `${lang}: Tab reaches its button`);
    t.is(await enterSends('/language'), 303);
    await page.waitForSelector(`html[lang="${lang}"]`);

    // sign-up: typed, Enter in the last field sends it
    await page.goto(`${base}/sign-up`);
    await checkForm(`${lang} /sign-up`, 'main form[action="/sign-up"]');
    await checkForm(`${lang} /sign-up`, 'header form.lang-choice');
    const email = `keys-${lang}-${Date.now()}@example.org`;
    t.true(await tabTo('#email'));
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    t.is(await enterSends('/sign-up'), 200, `${lang}: Enter sent the sign-up form`);
    const verify = linkIn((await mail.next(email)).text, '/verify')!;
    await page.goto(verify);
    t.true(await tabTo('main form button'));
    t.is(await enterSends('/verify'), 200);

    // sign-in: the three forms; a wrong password answered with the field marked, then the right one
    await page.goto(`${base}/sign-in`);
    for (const f of ['with-password', 'with-key', 'with-link'].map((s) => `section[aria-labelledby="${s}"] form`)) await checkForm(`${lang} /sign-in`, f);
    t.true(await tabTo('#email'));
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type('not the password at all');
    t.is(await enterSends('/sign-in'), 401);
    // the summary's link takes the keyboard to the field
    t.true(await tabTo('.notice-error a[href="#email"]'), `${lang}: the error summary's link is reachable`);
    await page.keyboard.press('Enter');
    t.is(await page.evaluate(() => (globalThis as any).location.hash), '#email');
    t.is(await page.getAttribute('#email', 'aria-invalid'), 'true');
    await page.goto(`${base}/sign-in`);
    t.true(await tabTo('#email'));
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    t.is(await enterSends('/sign-in'), 303, `${lang}: Enter sent the sign-in form`);
    await page.waitForURL(`${base}/account`);

    // the four products: the files are picked (a file dialog is the system's), the rest typed
    for (const product of ['hide', 'reveal', 'analyse', 'convert']) {
      await page.goto(`${base}/${product}`);
      await checkForm(`${lang} /${product}`, `main form[action="/${product}"]`);
    }
    const cover = path.join(FIXTURES, 'photo-mountain.jpg');
    await page.goto(`${base}/hide`);
    await page.setInputFiles('#secret', path.join(FIXTURES, 'secret-small.png'));
    await page.setInputFiles('#cover', cover);
    t.true(await tabTo('#password'));
    await page.keyboard.type(SECRET);
    t.is(await enterSends('/hide'), 303, `${lang}: Enter in the passphrase sent the hide form`);
    await page.goto(`${base}/reveal`);
    await page.setInputFiles('#file', cover);
    t.true(await tabTo('#password'));
    await page.keyboard.type(SECRET);
    t.is(await enterSends('/reveal'), 303, `${lang}: the reveal form`);
    await page.goto(`${base}/convert`);
    await page.setInputFiles('#files', cover);
    t.true(await tabTo('#image-format'));
    await page.keyboard.press('ArrowDown'); // the first format
    t.not(await page.inputValue('#image-format'), '');
    t.true(await tabTo('#quality'));
    await page.keyboard.type('70');
    t.is(await enterSends('/convert'), 303, `${lang}: Enter in the quality sent the convert form`);
    await page.goto(`${base}/analyse`);
    await page.setInputFiles('#files', path.join(FIXTURES, 'c2pa-ai-generated.png'));
    t.true(await tabTo('main form[action="/analyse"] button[type=submit]'));
    t.is(await enterSends('/analyse'), 303, `${lang}: Enter on the button sent the analyse form`);
    // the job page: its "check again" link is reached and followed with the keyboard
    await page.waitForURL(/\/job\//);
    const job = new URL(page.url()).pathname;
    if (await page.locator('#job-progress').count()) {
      t.true(await tabTo(`main a[href="${job}"]`), `${lang}: the job's "check again" link`);
      await page.keyboard.press('Enter');
      await page.waitForURL(`${base}${job}`);
    }
    await b.shot(`${lang}-job`);
  }
  t.deepEqual(findings, [], findings.join('\n'));
});
