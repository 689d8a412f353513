// The web pages as a person uses them: Tor Browser at its Safest level (a real chromium with
// JavaScript off), over the onion listener, from sign-up to every product. The onion name is
// mapped to the listener by the browser's resolver; the service hands out URLs on that name.
import test, { type ExecutionContext } from 'ava';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { startBrowser, PHONE_VIEWPORT } from './helpers/browser.ts';
import { freePort } from './helpers/child.ts';
import { startMailCatcher } from './helpers/mail-catcher.ts';
import { payload, sha256 } from './helpers/payload.ts';
import { startService, tempDir } from './helpers/service.ts';
import { translator } from '../src/i18n/format.ts';
import { fa } from '../src/i18n/catalogues/fa.ts';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const SHOTS = path.resolve(import.meta.dirname, '../test-output/web-pages');
const SHOTS_FA = path.resolve(import.meta.dirname, '../test-output/web-pages-fa');
const ONION = 'obscuratestpagesxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxad.onion';
const DONE = 120_000;

test.serial('a person signs up, verifies, makes a key and uses every product through the pages, without JavaScript, over the onion', async (t) => {
  t.timeout(300_000);
  t.is(ONION.length, 62);
  const { mail, origin, svc, b, page, work, text } = await journey(t, SHOTS);

  // home, then sign-up
  await page.goto(`${origin}/`);
  t.regex(await text(), /what this service keeps/i);
  await b.shot('home');
  await page.click('a[href="/sign-up"]');
  const email = `person-${Date.now()}@example.org`;
  const password = 'correct horse battery staple';
  await page.fill('input[name=email]', email);
  await page.fill('input[name=password]', password);
  await page.fill('input[name=password_again]', password);
  await b.shot('sign-up');
  await page.click('button:has-text("Create account")');
  t.regex(await text(), /check your mail/i);
  await b.shot('sign-up-sent');

  // the link in the mail is on the onion, single use
  const letter = await mail.next(email);
  const link = /(http:\/\/\S+\/verify\?token=[A-Za-z0-9_-]{43})/.exec(letter.text ?? '')?.[1];
  t.truthy(link, letter.text);
  t.true(link!.startsWith(`${origin}/verify?token=`));
  await page.goto(link!);
  await b.shot('verify');
  await page.click('button:has-text("Verify my address")');
  t.regex(await text(), /verified/i);
  await b.shot('verified');
  await page.goto(link!);
  t.regex(await text(), /not valid/i, 'a used link does not work twice');

  // sign in with the password; make a key, shown once; it works on the API
  await page.goto(`${origin}/sign-in`);
  await b.shot('sign-in');
  await page.fill('form:has(input[name=password]) input[name=email]', email);
  await page.fill('form:has(input[name=email]) input[name=password]', password);
  await page.click('button:has-text("Sign in"):not(:has-text("key"))');
  t.true(page.url().endsWith('/account'));
  await page.click('button:has-text("Create a key")');
  const key = ((await page.textContent('#new-key')) ?? '').trim();
  t.regex(key, /^sw_[A-Za-z0-9_-]{43}$/);
  await b.shot('account-new-key');
  const me = await fetch(`${svc.url.onion}/api/account`, { headers: { 'X-Api-Key': key } });
  t.is(me.status, 200);
  t.like(await me.json(), { email, verified: true });
  await page.goto(`${origin}/account`);
  t.false((await page.content()).includes(key), 'the key is shown once');

  // convert: a photo to WebP
  await page.goto(`${origin}/convert`);
  await page.setInputFiles('input[name=files]', path.join(FIXTURES, 'photo-mountain.jpg'));
  await page.selectOption('select[name=image_format]', 'webp');
  await b.shot('convert-form');
  await page.click('button:has-text("Convert")');
  const convertJob = /\/job\/([\w-]+)$/.exec(page.url())?.[1];
  t.truthy(convertJob, `${page.url()} ${await text()}`);
  await b.shot('job-running');
  // the page does not reload itself (that would move a screen reader to its top): the person
  // follows its "check again" link until the job ends
  await whenDone(page, `a[href="/job/${convertJob}/file/0"]`);
  await b.shot('convert-result');
  const webp = await download(page, `/job/${convertJob}/file/0`);
  t.is(webp.subarray(0, 4).toString(), 'RIFF');
  t.is(webp.subarray(8, 12).toString(), 'WEBP');

  // hide a secret in the photo, with a decoy beside it for a border crossing
  const secret = path.join(FIXTURES, 'secret-small.png');
  // a photo: a decoy must be at least as large as the secret once compressed, which text is not
  const decoy = path.join(work, 'holiday.jpg');
  await sharp(path.join(FIXTURES, 'photo-mountain.jpg')).resize(320, 240).jpeg({ quality: 85 }).toFile(decoy);
  await page.goto(`${origin}/hide`);
  await page.setInputFiles('input[name=secret]', secret);
  await page.setInputFiles('input[name=cover]', path.join(FIXTURES, 'photo-mountain.jpg'));
  await page.fill('input[name=password]', 'four random words here');
  await page.setInputFiles('input[name=decoy]', decoy);
  await page.fill('input[name=decoy_password]', 'the one I would hand over');
  await b.shot('hide-form');
  await page.click('button:has-text("Hide")');
  const hideJob = /\/job\/([\w-]+)$/.exec(page.url())?.[1];
  await whenDone(page, `a[href="/job/${hideJob}/file/0"]`);
  await b.shot('hide-result');
  const stego = await download(page, `/job/${hideJob}/file/0`);
  const stegoFile = path.join(work, 'stego.png');
  writeFileSync(stegoFile, stego);
  t.is(stego.subarray(1, 4).toString(), 'PNG');

  // reveal with a wrong passphrase: the job's own message, on the page
  await page.goto(`${origin}/reveal`);
  await page.setInputFiles('input[name=file]', stegoFile);
  await page.fill('input[name=password]', 'not the passphrase');
  await page.click('button:has-text("Reveal")');
  await whenDone(page, 'text=No hidden content could be recovered with this passphrase.');
  await b.shot('reveal-wrong-passphrase');

  // with the decoy's: the decoy alone, in the words of any reveal
  await page.goto(`${origin}/reveal`);
  await page.setInputFiles('input[name=file]', stegoFile);
  await page.fill('input[name=password]', 'the one I would hand over');
  await page.click('button:has-text("Reveal")');
  const decoyJob = /\/job\/([\w-]+)$/.exec(page.url())?.[1];
  await whenDone(page, `a[href="/job/${decoyJob}/file/0"]`);
  t.true((await text()).includes('Recovered 1 hidden file.'));
  t.false(await page.isVisible(`a[href="/job/${decoyJob}/file/1"]`), 'one file: the decoy, nothing else');
  t.is(sha256(await download(page, `/job/${decoyJob}/file/0`)), sha256(readFileSync(decoy)));

  // and with the right one: the secret comes back bit for bit
  await page.goto(`${origin}/reveal`);
  await page.setInputFiles('input[name=file]', stegoFile);
  await page.fill('input[name=password]', 'four random words here');
  await b.shot('reveal-form');
  await page.click('button:has-text("Reveal")');
  const revealJob = /\/job\/([\w-]+)$/.exec(page.url())?.[1];
  await whenDone(page, `a[href="/job/${revealJob}/file/0"]`);
  await b.shot('reveal-result');
  t.is(sha256(await download(page, `/job/${revealJob}/file/0`)), sha256(readFileSync(secret)));

  // a JPEG someone sent, hidden with steghide: revealed here with the passphrase sent with it
  const sent = path.join(work, 'sent.jpg');
  await sharp(path.join(FIXTURES, 'photo-mountain.jpg')).resize(640, 480).jpeg({ quality: 90 }).toFile(path.join(work, 'plain.jpg'));
  execFileSync('steghide', ['embed', '-cf', path.join(work, 'plain.jpg'), '-ef', secret, '-sf', sent, '-p', 'sent along with it', '-q', '-f']);
  await page.goto(`${origin}/reveal`);
  await page.setInputFiles('input[name=file]', sent);
  await page.fill('input[name=password]', 'sent along with it');
  await page.click('button:has-text("Reveal")');
  const sentJob = /\/job\/([\w-]+)$/.exec(page.url())?.[1];
  await whenDone(page, `a[href="/job/${sentJob}/file/0"]`);
  t.true((await text()).includes('Recovered 1 hidden file, hidden with steghide.'));
  t.is(sha256(await download(page, `/job/${sentJob}/file/0`)), sha256(readFileSync(secret)));

  // analyse the C2PA-signed AI picture: a report with its grade, findings and pictures
  await page.goto(`${origin}/analyse`);
  await page.setInputFiles('input[name=files]', path.join(FIXTURES, 'c2pa-ai-generated.png'));
  await b.shot('analyse-form');
  await page.click('button:has-text("Analyse")');
  const analyseJob = /\/job\/([\w-]+)$/.exec(page.url())?.[1];
  await whenDone(page, '.grade-A, .grade-B, .grade-C, .grade-D, .grade-E, .grade-F');
  await b.shot('analyse-report');
  const report = await text();
  t.regex(report, /c2pa/i);
  t.regex(report, /generat/i, 'the AI declaration is named');
  const images = await page.$$eval('main img', (els) => els.map((e) => e.getAttribute('src')));
  t.true(images.length >= 1, 'the report shows its pictures inline');
  // fetched with the browser's cookie, at the listener the onion name maps to
  const cookie = (await b.context.cookies(origin)).map((c) => `${c.name}=${c.value}`).join('; ');
  for (const src of images) {
    t.regex(src!, new RegExp(`^/job/${analyseJob}/file/\\d+$`));
    const r = await fetch(`${svc.url.onion}${src}`, { headers: { cookie } });
    t.is(r.status, 200);
    t.regex(r.headers.get('content-type')!, /^image\/(png|jpeg)/);
    t.regex(r.headers.get('content-disposition')!, /^attachment; filename="[a-z_]+\.(png|jpg)"/);
  }

  // an oversize file: the API's message, on the form, with the options kept
  const big = path.join(work, 'big.png');
  writeFileSync(big, payload(9 * 1024 * 1024));
  await page.goto(`${origin}/convert`);
  await page.setInputFiles('input[name=files]', big);
  await page.selectOption('select[name=image_format]', 'avif');
  await page.fill('input[name=quality]', '55');
  const [res] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button:has-text("Convert")')]);
  t.is(res.status(), 413);
  t.regex(await text(), /at most 8 MiB can be uploaded/, 'the limit in words, not a byte count');
  t.is(await page.inputValue('select[name=image_format]'), 'avif');
  t.is(await page.inputValue('input[name=quality]'), '55');
  await b.shot('convert-too-large');

  // the pages at a phone's width: nothing wider than the screen
  await page.setViewportSize(PHONE_VIEWPORT);
  for (const p of ['/', '/hide', '/convert', `/job/${analyseJob}`, '/account']) {
    await page.goto(`${origin}${p}`);
    const width = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
    t.true(width <= PHONE_VIEWPORT.width, `${p} is ${width} px wide on a phone`);
  }
  await b.shot('phone-job-report');

  // sign out ends the session: the account page asks to sign in again
  await page.click('button:has-text("Sign out")');
  await page.goto(`${origin}/account`);
  t.true(page.url().endsWith('/sign-in'));

  // every page the browser loaded: no script, no handler, nothing from elsewhere, the CSP
  t.true(b.documents.length > 20);
  for (const d of b.documents.filter((d) => d.headers['content-type']?.startsWith('text/html'))) {
    t.notRegex(d.body, /<script/i, d.url);
    t.notRegex(d.body, /\son[a-z]+\s*=/i, d.url);
    for (const m of d.body.matchAll(/(?:href|src|action)\s*=\s*"([^"]*)"/gi)) t.regex(m[1], /^(\/|#)/, `${d.url}: ${m[1]}`);
    t.is(d.headers['content-security-policy'], "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'", d.url);
    t.is(d.headers['referrer-policy'], 'no-referrer');
    t.is(d.headers['cache-control'], 'no-store');
  }
  t.log(`${b.documents.length} documents checked; screenshots in ${SHOTS}`);
});

/** Follows a running job page's "check again" link until `selector` is on the page. */
/** The service with a mail catcher on an onion listener, and a browser that reaches it by the
 *  onion name: what both journeys start from, closed when the test ends. */
async function journey(t: ExecutionContext, shotsDir: string) {
  const mail = await startMailCatcher();
  const port = await freePort();
  const origin = `http://${ONION}:${port}`;
  const svc = await startService({
    OBSCURA_SMTP_URL: mail.url,
    OBSCURA_ONION_LISTEN: `127.0.0.1:${port}`,
    OBSCURA_ONION_ORIGIN: origin,
    OBSCURA_DIRECT_UPLOAD_MAX: '8MiB',
  });
  const b = await startBrowser({ hostRules: `MAP ${ONION} 127.0.0.1`, shotsDir });
  const { page } = b;
  t.teardown(async () => {
    await b.close();
    await svc.close();
    await mail.close();
  });
  const text = async () => (await page.textContent('main')) ?? '';
  return { mail, origin, svc, b, page, work: tempDir(), text };
}

async function whenDone(page: import('playwright-core').Page, selector: string): Promise<void> {
  const end = Date.now() + DONE;
  while ((await page.locator(selector).count()) === 0) {
    if (Date.now() > end) throw new Error(`${selector}: not on the job page within ${DONE / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
    const again = page.locator(`main a[href="${new URL(page.url()).pathname}"]`);
    if (await again.count()) await again.first().click();
  }
}

// The same journey in Persian, right to left: the person picks فارسی with the chooser on the home
// page (a select and a button: no script), and every page after it, the mail, the job messages
// (the wrong passphrase's too) and the report are in Persian. Selectors name fields, types,
// hrefs and form actions, never words.
test.serial('the same journey in Persian (right to left), chosen on the home page, over the onion without JavaScript', async (t) => {
  t.timeout(300_000);
  const say = translator('fa');
  const { mail, origin, b, page, work, text } = await journey(t, SHOTS_FA);
  const submit = (action: string) => page.click(`main form[action="${action}"] button[type=submit]`);
  const jobOf = () => /\/job\/([\w-]+)$/.exec(page.url())?.[1];

  // Tor Browser says en-US whatever the person reads: the home page is English until they choose
  await page.goto(`${origin}/`);
  t.regex(await page.getAttribute('html', 'lang') ?? '', /^en/);
  await page.selectOption('form[action="/language"] select[name=lang]', 'fa');
  await page.click('form[action="/language"]:has(select[name=lang]) button[type=submit]');
  t.is(new URL(page.url()).pathname, '/', 'back on the page it was chosen from');
  const chosen = b.documents.length;
  t.is(await page.getAttribute('html', 'lang'), 'fa');
  t.is(await page.getAttribute('html', 'dir'), 'rtl');
  t.true((await text()).includes(say('home.privacy')));
  await b.shot('home');

  // sign up: the mail goes out in Persian
  await page.click('main a[href="/sign-up"]');
  const email = `person-fa-${Date.now()}@example.org`;
  const password = 'correct horse battery staple';
  await page.fill('input[name=email]', email);
  await page.fill('input[name=password]', password);
  await page.fill('input[name=password_again]', password);
  await b.shot('sign-up');
  await submit('/sign-up');
  t.true((await page.textContent('h1'))!.includes(say('mailSent.title')));
  const letter = await mail.next(email);
  t.is(letter.subject, say('mail.verify.subject'));
  t.true((letter.text ?? '').includes(fa['mail.verify.text'].split('\n')[0]), letter.text);
  const link = /(http:\/\/\S+\/verify\?token=[A-Za-z0-9_-]{43})/.exec(letter.text ?? '')?.[1];
  t.truthy(link, letter.text);
  await page.goto(link!);
  await b.shot('verify');
  await submit('/verify');
  t.true((await text()).includes(say('verify.done.heading')));

  // sign in with the password; make a key
  await page.goto(`${origin}/sign-in`);
  await page.fill('form[action="/sign-in"]:has(input[name=password]) input[name=email]', email);
  await page.fill('form[action="/sign-in"]:has(input[name=email]) input[name=password]', password);
  await b.shot('sign-in');
  await page.click('form[action="/sign-in"]:has(input[name=password]) button[type=submit]');
  t.true(page.url().endsWith('/account'));
  await submit('/account/keys');
  t.regex(((await page.textContent('#new-key')) ?? '').trim(), /^sw_[A-Za-z0-9_-]{43}$/);
  t.true((await text()).includes(say('account.keys.made')));
  await b.shot('account-new-key');

  // convert: the photo to WebP; the result page in Persian, its size in Latin digits
  await page.goto(`${origin}/convert`);
  await page.setInputFiles('input[name=files]', path.join(FIXTURES, 'photo-mountain.jpg'));
  await page.selectOption('select[name=image_format]', 'webp');
  await b.shot('convert-form');
  await submit('/convert');
  const convertJob = jobOf();
  t.truthy(convertJob, `${page.url()} ${await text()}`);
  if (await page.$('main progress')) {
    // still running (it may already be done): its progress message in Persian
    const running = await text();
    t.true([say('jobMsg.queued'), say('jobMsg.convert.file', { i: 1, n: 1 })].some((m) => running.includes(m)), running);
  }
  await b.shot('job-running');
  await whenDone(page, `a[href="/job/${convertJob}/file/0"]`);
  const converted = await text();
  t.true(converted.includes(say('jobMsg.convert.done', { n: 1 })), converted);
  t.regex(converted, /\d+(\.\d)? KiB/, 'the size in Latin digits');
  await b.shot('convert-result');
  const webp = await download(page, `/job/${convertJob}/file/0`);
  t.is(webp.subarray(8, 12).toString(), 'WEBP');

  // hide: the result's message and the cover's note in Persian
  const secret = path.join(FIXTURES, 'secret-small.png');
  await page.goto(`${origin}/hide`);
  await page.setInputFiles('input[name=secret]', secret);
  await page.setInputFiles('input[name=cover]', path.join(FIXTURES, 'photo-mountain.jpg'));
  await page.fill('input[name=password]', 'four random words here');
  await b.shot('hide-form');
  await submit('/hide');
  const hideJob = jobOf();
  await whenDone(page, `a[href="/job/${hideJob}/file/0"]`);
  const hidden = await text();
  t.true(hidden.includes(say('jobMsg.hide.done', { n: 1 })), hidden);
  t.true(hidden.includes(say('jobMsg.note.coverFormat', { from: 'JPEG', to: 'PNG' })), hidden);
  t.true(hidden.includes(say('job.shareAsIs')));
  await b.shot('hide-result');
  const stegoFile = path.join(work, 'stego.png');
  writeFileSync(stegoFile, await download(page, `/job/${hideJob}/file/0`));

  // reveal with a wrong passphrase: the failure in Persian, by its code
  await page.goto(`${origin}/reveal`);
  await page.setInputFiles('input[name=file]', stegoFile);
  await page.fill('input[name=password]', 'not the passphrase');
  await submit('/reveal');
  await whenDone(page, `[role=alert]:has-text("${say('error.nothing_found')}")`);
  await b.shot('reveal-wrong-passphrase');

  // and with the right one: the secret back, bit for bit
  await page.goto(`${origin}/reveal`);
  await page.setInputFiles('input[name=file]', stegoFile);
  await page.fill('input[name=password]', 'four random words here');
  await b.shot('reveal-form');
  await submit('/reveal');
  const revealJob = jobOf();
  await whenDone(page, `a[href="/job/${revealJob}/file/0"]`);
  t.true((await text()).includes(say('jobMsg.reveal.done', { n: 1 })));
  await b.shot('reveal-result');
  t.is(sha256(await download(page, `/job/${revealJob}/file/0`)), sha256(readFileSync(secret)));

  // analyse the C2PA-signed AI picture: the report in Persian
  await page.goto(`${origin}/analyse`);
  await page.setInputFiles('input[name=files]', path.join(FIXTURES, 'c2pa-ai-generated.png'));
  await b.shot('analyse-form');
  await submit('/analyse');
  await whenDone(page, '.grade-A, .grade-B, .grade-C, .grade-D, .grade-E, .grade-F');
  const report = await text();
  for (const key of ['report.heading', 'report.findings', 'report.check.c2pa', 'report.check.ai_generation', 'report.field.boxes', 'report.reason.videoOnly', 'jobMsg.analyse.done'] as const) {
    t.true(report.includes(key === 'jobMsg.analyse.done' ? say(key, { n: 1 }) : say(key)), `${key}: ${report}`);
  }
  await b.shot('analyse-report');

  // an oversize file: the limit in Persian, in Latin digits
  const big = path.join(work, 'big.png');
  writeFileSync(big, payload(9 * 1024 * 1024));
  await page.goto(`${origin}/convert`);
  await page.setInputFiles('input[name=files]', big);
  await page.selectOption('select[name=image_format]', 'avif');
  const [res] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), submit('/convert')]);
  t.is(res.status(), 413);
  t.true((await text()).includes(say('errorWith.file_too_large', { size: '8 MiB' })), await text());
  await b.shot('convert-too-large');

  // every page after the choice: Persian, right to left, and none of the pages' English words
  const ENGLISH = ['Sign in', 'Sign up', 'Sign out', 'Create account', 'Convert', 'Hide', 'Reveal', 'Analyse', 'Analysis', 'Download', 'Tip', 'No answer', 'no answer', 'Grade', 'Findings', 'State', 'Started', 'Finished', 'Queued', 'Recovered', 'Converted', 'Analysed', 'Hid', 'passphrase', 'lossless', 'Account', 'Progress', 'results', 'file', 'Boxes', 'Clone', 'Embedded', 'Unusual chunks', 'Regions', 'Only videos', 'Only the audio', 'Converting', 'Analysing', 'Looking for', 'Hiding', 'Preparing', 'Waiting'];
  const pages = b.documents.slice(chosen).filter((d) => d.status !== 303 && d.headers['content-type']?.startsWith('text/html'));
  t.true(pages.length >= 15, `${pages.length} pages`);
  for (const d of pages) {
    t.regex(d.body, /<html lang="fa" dir="rtl">/, d.url);
    const words = visibleText(d.body);
    for (const w of ENGLISH) t.notRegex(words, new RegExp(`\\b${w}\\b`), `${d.url}: "${w}" in ${words}`);
  }
  t.log(`${pages.length} Persian pages checked; screenshots in ${SHOTS_FA}`);
});

/** A page's text as a person meets it: its text and the text of its alt, title, aria-label and placeholder attributes. */
function visibleText(body: string): string {
  const attrs = [...body.matchAll(/\s(?:alt|title|aria-label|placeholder)="([^"]*)"/g)].map((m) => m[1]);
  const text = body
    .replace(/<head>[\s\S]*?<\/head>/, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&[a-z]+;|&#\d+;/g, ' ');
  return `${text} ${attrs.join(' ')}`.replace(/\s+/g, ' ');
}

async function download(page: import('playwright-core').Page, href: string): Promise<Buffer> {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`a[href="${href}"]`)]);
  const file = await dl.path();
  return readFileSync(file);
}
