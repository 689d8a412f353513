// The web pages' own rules, checked at the HTTP level: pages on all three networks, the
// session cookie, CSRF, the sign-in brake, sign-up closed without a mail relay, one person's
// job invisible to another, nothing personal in the logs.
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startMailCatcher } from './helpers/mail-catcher.ts';
import { MARKER, payload } from './helpers/payload.ts';
import { startService, type RunningService } from './helpers/service.ts';
import { WebClient } from './helpers/web-client.ts';

const PASSWORD = 'a long enough password';
const PAGE_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** A verified account with a web password, and a browser signed in to it. */
async function person(svc: RunningService, network: 'clearnet' | 'onion' | 'i2p' = 'clearnet') {
  const { email, key } = await svc.account();
  await svc.services.selfService.setPassword(await svc.services.accounts.get(email), PASSWORD);
  const web = new WebClient(svc.url[network]);
  const r = await web.signIn(email, PASSWORD);
  if (r.status !== 303) throw new Error(`sign-in ${r.status}`);
  return { email, key, web };
}

test('the pages answer on all three listeners, as HTML under the pages CSP, with a cookie only scripts cannot read', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  for (const network of ['clearnet', 'onion', 'i2p'] as const) {
    const r = await new WebClient(svc.url[network]).get('/');
    t.is(r.status, 200, network);
    t.regex(r.headers.get('content-type')!, /^text\/html; charset=utf-8/);
    t.is(r.headers.get('content-security-policy'), PAGE_CSP);
    t.is(r.headers.get('referrer-policy'), 'no-referrer');
    t.is(r.headers.get('cache-control'), 'no-store');
    t.regex(r.headers.get('set-cookie')!, /^obscura=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
    t.notRegex(r.body, /<script|\son[a-z]+=/i);
  }
  const css = await fetch(`${svc.url.onion}/static/obscura.css`);
  t.is(css.status, 200);
  t.regex(css.headers.get('content-type')!, /^text\/css/);
  t.notRegex(await css.text(), /url\(|@import|@font-face/i, 'nothing loaded from elsewhere, no web fonts');
  // the API keeps its own rules: JSON errors, and the strict API policy
  const api = await fetch(`${svc.url.onion}/api/nothing-here`);
  t.is(api.status, 404);
  t.like(await api.json(), { error: 'not_found' });
});

test('on an https origin the cookie is Secure with the __Host- prefix', async (t) => {
  const svc = await startService({ OBSCURA_CLEARNET_ORIGIN: 'https://media.example.org' });
  t.teardown(() => svc.close());
  const r = await new WebClient(svc.url.clearnet).get('/sign-in');
  t.regex(r.headers.get('set-cookie')!, /^__Host-obscura=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Secure$/);
});

test('CSRF: a form without its token, or with another visitor’s, is refused and changes nothing', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const alice = await person(svc);
  const mallory = new WebClient(svc.url.clearnet);
  await mallory.get('/sign-in');

  const before = (await svc.services.apiKeys.list(alice.email)).length;
  const none = await alice.web.post('/account/keys', { csrf: '' });
  t.is(none.status, 403);
  t.regex(none.body, /csrf_failed/);
  t.regex(none.headers.get('content-type')!, /^text\/html/);
  const foreign = await alice.web.post('/account/keys', { csrf: mallory.csrf });
  t.is(foreign.status, 403);
  t.is((await svc.services.apiKeys.list(alice.email)).length, before, 'no key was made');

  // a product form whose file comes with a stranger's token: refused, nothing stored
  const form = new FormData();
  form.append('csrf', mallory.csrf);
  form.append('files', new Blob([payload(64 * 1024)]), 'x.png');
  form.append('image_format', 'webp');
  const r = await alice.web.postMultipart('/convert', form);
  t.is(r.status, 403);
  t.is(svc.services.db!.prepare("SELECT count(*) AS n FROM uploads WHERE state IN ('uploading', 'completed')").get()!.n, 0);
  // and a file before the token is refused too
  await alice.web.get('/convert');
  const early = new FormData();
  early.append('files', new Blob([payload(1024)]), 'x.png');
  early.append('csrf', alice.web.csrf);
  t.is((await alice.web.postMultipart('/convert', early)).status, 403);

  // sign-out without the token does not sign out
  t.is((await alice.web.post('/sign-out', { csrf: mallory.csrf })).status, 403);
  t.is((await alice.web.get('/account')).status, 200);
});

test('sign-in: the 6th failure from one visitor within the window is answered 429 with Retry-After; others are not braked by it', async (t) => {
  t.timeout(60_000);
  const svc = await startService({ OBSCURA_CLEARNET_CLIENT_HEADER: 'X-Forwarded-For' });
  t.teardown(() => svc.close());
  const { email } = await person(svc);
  const web = new WebClient(svc.url.clearnet, { 'x-forwarded-for': '198.51.100.23' });
  await web.get('/sign-in');
  for (let i = 1; i <= 5; i++) {
    const r = await web.post('/sign-in', { method: 'password', email, password: `wrong password ${i}` });
    t.is(r.status, 401, `attempt ${i}`);
    t.regex(r.body, /The e-mail address or the password is wrong/);
    t.regex(r.body, new RegExp(`value="${email.replace(/[.+]/g, '\\$&')}"`), 'the address is kept in the form');
  }
  const sixth = await web.post('/sign-in', { method: 'password', email, password: PASSWORD });
  t.is(sixth.status, 429, 'even the right password waits, from this visitor');
  t.regex(sixth.headers.get('retry-after')!, /^\d+$/);
  t.true(Number(sixth.headers.get('retry-after')) > 800);
  // an unknown address fails with the same words, so answers tell nothing about who has an account
  const elsewhere = new WebClient(svc.url.clearnet, { 'x-forwarded-for': '203.0.113.5' });
  await elsewhere.get('/sign-in');
  const unknown = await elsewhere.post('/sign-in', { method: 'password', email: 'nobody@example.org', password: PASSWORD });
  t.is(unknown.status, 401);
  t.regex(unknown.body, /The e-mail address or the password is wrong/);
  // the owner, elsewhere, is not braked by this visitor
  t.is((await elsewhere.post('/sign-in', { method: 'password', email, password: PASSWORD })).status, 303);
});


test('sign-in: visitors the service cannot tell apart (a proxy that names no client, an onion connection without its circuit) are slowed past the brake, never refused', async (t) => {
  t.timeout(60_000);
  const svc = await startService({ OBSCURA_WEB_SLOWDOWN: '50ms' });
  t.teardown(() => svc.close());
  const { email } = await person(svc);
  for (const base of [svc.url.clearnet, svc.url.onion]) {
    const shared = new WebClient(base); // from loopback, no client header: one name for all
    await shared.get('/sign-in');
    for (let i = 1; i <= 6; i++) t.is((await shared.post('/sign-in', { method: 'password', email: `nobody${i}@example.org`, password: `wrong password ${i}` })).status, 401);
    const owner = new WebClient(base);
    await owner.get('/sign-in');
    t.is((await owner.post('/sign-in', { method: 'password', email, password: PASSWORD })).status, 303, `${base}: the owner behind the same name gets in`);
  }
});
test('sign-in with an API key; sign-out ends the session on the server; sessions end after inactivity', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key, email } = await svc.account();
  const web = new WebClient(svc.url.i2p);
  await web.get('/sign-in');
  const anonymous = web.cookie;
  const bad = await web.post('/sign-in', { method: 'key', api_key: 'sw_' + 'x'.repeat(43) });
  t.is(bad.status, 401);
  t.regex(bad.body, /invalid_api_key/);
  const ok = await web.post('/sign-in', { method: 'key', api_key: key });
  t.is(ok.status, 303);
  t.is(ok.headers.get('location'), '/account');
  t.not(web.cookie, anonymous, 'a new token at sign-in');
  const account = await web.get('/account');
  t.regex(account.body, new RegExp(email.replace(/[.+]/g, '\\$&')));
  // revoke the key from the page: the API refuses it at once, and this browser, signed in by it, is signed out
  const id = (await svc.services.apiKeys.list(email))[0].id;
  const revoked = await web.post('/account/keys/revoke', { key_id: id });
  t.is(revoked.status, 303);
  t.is(revoked.headers.get('location'), '/sign-in');
  t.is((await svc.api('GET', '/api/account', key)).status, 401);
  t.is((await web.get('/account')).status, 303);

  const second = (await svc.services.apiKeys.issue(email)).key;
  await web.get('/sign-in');
  t.is((await web.post('/sign-in', { method: 'key', api_key: second })).status, 303);
  await web.get('/account');
  const signedIn = web.cookie;
  t.is((await web.post('/sign-out', {})).status, 303);
  const stale = new WebClient(svc.url.i2p);
  stale.cookie = signedIn;
  const after = await stale.get('/account');
  t.is(after.status, 303, 'the old cookie signs no one in');
  t.is(after.headers.get('location'), '/sign-in');

  const idle = svc.services.config.web.sessionIdleMs;
  const token = await svc.services.webSessions.open(await svc.services.accounts.get(email), { network: 'i2p', method: 'password' });
  t.truthy(await svc.services.webSessions.resolve(token, Date.now() + idle - 60_000));
  t.is(await svc.services.webSessions.resolve(token, Date.now() + 2 * idle), undefined, 'ended after inactivity');
  t.is(await svc.services.webSessions.resolve(token), undefined, 'and gone for good');
});

test('without a mail relay sign-up is closed and says so, and no connection is attempted', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const web = new WebClient(svc.url.clearnet);
  const page = await web.get('/sign-up');
  t.is(page.status, 403);
  t.regex(page.body, /Sign-up is closed/);
  t.notRegex(page.body, /name="password_again"/);
  await web.get('/sign-in'); // the closed page has no form, so no token: take one from a page that has
  const r = await web.post('/sign-up', { email: 'new@example.org', password: PASSWORD, password_again: PASSWORD });
  t.is(r.status, 403);
  t.regex(r.body, /sign_up_closed/);
  await t.throwsAsync(() => svc.services.accounts.get('new@example.org'));
});

test('sign-up: a taken address looks the same and its owner is told; mails and sign-ups are braked; links expire and work once', async (t) => {
  t.timeout(60_000);
  const mail = await startMailCatcher();
  const svc = await startService({ OBSCURA_SMTP_URL: mail.url, OBSCURA_MAILS_PER_ADDRESS: '2', OBSCURA_SIGN_UPS_PER_VISITOR: '4', OBSCURA_CLEARNET_CLIENT_HEADER: 'X-Forwarded-For' });
  t.teardown(async () => {
    await svc.close();
    await mail.close();
  });
  const web = new WebClient(svc.url.clearnet, { 'x-forwarded-for': '198.51.100.40' });
  await web.get('/sign-up');
  const short = await web.post('/sign-up', { email: 'a@example.org', password: 'short', password_again: 'short' });
  t.is(short.status, 422);
  t.regex(short.body, /weak_password/);
  t.regex(short.body, /value="a@example.org"/, 'the address is kept');
  const differ = await web.post('/sign-up', { email: 'a@example.org', password: PASSWORD, password_again: PASSWORD + 'x' });
  t.is(differ.status, 422);
  t.regex(differ.body, /passwords_differ/);

  const first = await web.post('/sign-up', { email: 'a@example.org', password: PASSWORD, password_again: PASSWORD });
  t.is(first.status, 200);
  const verifyMail = await mail.next('a@example.org');
  t.regex(verifyMail.subject!, /create an Obscura account/);

  // the link: an unverified account cannot start anything; the link works once
  const link = /(http:\/\/\S+\/verify\?token=[A-Za-z0-9_-]{43})/.exec(verifyMail.text!)![1];
  const signedIn = new WebClient(svc.url.clearnet);
  t.is((await signedIn.signIn('a@example.org', PASSWORD)).status, 303);
  const form = new FormData();
  await signedIn.get('/analyse');
  form.append('csrf', signedIn.csrf);
  form.append('files', new Blob([readFileSync(path.join(import.meta.dirname, 'fixtures/secret-small.png'))]), 'a.png');
  const refused = await signedIn.postMultipart('/analyse', form);
  t.is(refused.status, 401);
  t.regex(refused.body, /account_not_verified/);
  const token = new URL(link).searchParams.get('token')!;
  const confirm = await signedIn.get(`/verify?token=${token}`);
  t.is(confirm.status, 200);
  t.false((await svc.services.accounts.get('a@example.org')).verifiedAt !== null, 'opening the link alone verifies nothing');
  t.is((await signedIn.post('/verify', { token })).status, 200);
  t.true((await svc.services.accounts.get('a@example.org')).verifiedAt !== null);
  const again = await signedIn.post('/verify', { token });
  t.is(again.status, 410);
  t.regex(again.body, /link_invalid/);
  t.is(await svc.services.selfService.linkUsable(token), false);

  // verified, the address is taken: the same page, and its owner is told
  const taken = await web.post('/sign-up', { email: 'A@example.org', password: PASSWORD, password_again: PASSWORD });
  t.is(taken.status, 200);
  t.is(taken.body.replace(/A@example/g, 'a@example').replace(/value="[^"]+"/g, ''), first.body.replace(/value="[^"]+"/g, ''), 'the same page either way');
  const notice = await mail.next('a@example.org');
  t.regex(notice.text!, /already has one/);
  t.regex(notice.text!, new RegExp(`${svc.url.clearnet}/sign-in`));
  const third = await web.post('/sign-up', { email: 'a@example.org', password: PASSWORD, password_again: PASSWORD });
  t.is(third.status, 429, 'a third mail to one address within the hour');
  t.truthy(third.headers.get('retry-after'));

  // sign-ups an hour from one visitor (4: three above, then one more)
  t.is((await web.post('/sign-up', { email: 'b@example.org', password: PASSWORD, password_again: PASSWORD })).status, 200);
  const over = await web.post('/sign-up', { email: 'c@example.org', password: PASSWORD, password_again: PASSWORD });
  t.is(over.status, 429);

  // nothing personal in the logs: no address, no password, no token
  const logs = svc.logs.join('');
  for (const secret of ['a@example.org', 'b@example.org', PASSWORD, token]) t.false(logs.includes(secret), secret);
});

test('a signed-up address is nowhere in the data folder as text, yet its mail, sign-in and account page work', async (t) => {
  const mail = await startMailCatcher();
  const svc = await startService({ OBSCURA_SMTP_URL: mail.url });
  t.teardown(async () => {
    await svc.close();
    await mail.close();
  });
  const email = 'Judy.Private@Example.org';
  const web = new WebClient(svc.url.clearnet);
  await web.get('/sign-up');
  t.is((await web.post('/sign-up', { email, password: PASSWORD, password_again: PASSWORD })).status, 200);
  const letter = await mail.next('Judy.Private@Example.org');
  const token = /verify\?token=([A-Za-z0-9_-]{43})/.exec(letter.text!)![1];
  const person = new WebClient(svc.url.clearnet);
  t.is((await person.signIn('judy.private@example.org', PASSWORD)).status, 303, 'signed in with the address in another case');
  await person.get(`/verify?token=${token}`);
  t.is((await person.post('/verify', { token })).status, 200);
  t.regex((await person.get('/account')).body, /Judy\.Private@Example\.org/, 'the account page shows the address as it was given');

  // what someone who images the disk finds: the database, its WAL, the blobs
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) (e.isDirectory() ? walk : (f: string) => files.push(f))(path.join(dir, e.name));
  };
  walk(svc.dataDir);
  t.true(files.some((f) => f.endsWith('obscura.db')));
  for (const f of files) {
    const text = readFileSync(f).toString('latin1').toLowerCase();
    t.false(text.includes('judy.private'), `${path.basename(f)} holds the address`);
  }
});

test('sign-up: a common or guessable password is refused, and the page says why', async (t) => {
  const mail = await startMailCatcher();
  const svc = await startService({ OBSCURA_SMTP_URL: mail.url });
  t.teardown(async () => {
    await svc.close();
    await mail.close();
  });
  const web = new WebClient(svc.url.clearnet);
  await web.get('/sign-up');
  const refusals: [string, RegExp][] = [
    ['password12', /among the most common passwords/],
    ['1111111111', /repeats a character/],
    ['qwertyuiop', /among the hundred most common passwords/],
    ['abcdefghijk', /is a sequence/],
    ['Sunshine2024', /a common password with small changes/],
    ['mallory@example.org', /contains your e-mail address/],
  ];
  for (const [password, why] of refusals) {
    const r = await web.post('/sign-up', { email: 'mallory@example.org', password, password_again: password });
    t.is(r.status, 422, password);
    t.regex(r.body, /weak_password/, password);
    t.regex(r.body, why, password);
    t.regex(r.body, /choose another; a few unrelated words make a good one/, password);
    t.regex(r.body, /value="mallory@example.org"/, 'the address is kept');
    if (!password.includes('@')) t.false(r.body.includes(password), 'the password is not shown again');
  }
  await t.throwsAsync(() => svc.services.accounts.get('mallory@example.org'), undefined, 'no account was made');
  const good = await web.post('/sign-up', { email: 'mallory@example.org', password: PASSWORD, password_again: PASSWORD });
  t.is(good.status, 200, 'a few unrelated words pass');
  t.truthy(await svc.services.accounts.get('mallory@example.org'));
});

test('a job page and its files are its owner’s alone; downloads are attachments; a refused form keeps nothing', async (t) => {
  t.timeout(90_000);
  const svc = await startService({ OBSCURA_DIRECT_UPLOAD_MAX: '1MiB' });
  t.teardown(() => svc.close());
  const alice = await person(svc);
  const bob = await person(svc);
  await alice.web.get('/convert');
  const form = new FormData();
  form.append('csrf', alice.web.csrf);
  form.append('files', new Blob([readFileSync(path.join(import.meta.dirname, 'fixtures/secret-small.png'))]), '<b>odd "name".png');
  form.append('image_format', 'jpeg');
  form.append('quality', '80');
  form.append('fit', 'inside');
  form.append('redact_style', 'blur');
  const started = await alice.web.postMultipart('/convert', form);
  t.is(started.status, 303, started.body.slice(0, 300));
  const jobPath = started.headers.get('location')!;
  t.regex(jobPath, /^\/job\/job_[\w-]+$/);
  let page = await alice.web.get(jobPath);
  for (let i = 0; i < 100 && !/\/file\/0"/.test(page.body); i++) {
    t.notRegex(page.body, /http-equiv="refresh"/, 'a running job never reloads by itself');
    t.regex(page.body, new RegExp(`<a href="${jobPath}">Check again</a>`));
    await new Promise((r) => setTimeout(r, 300));
    page = await alice.web.get(jobPath);
  }
  t.notRegex(page.body, /id="job-progress"/, 'a finished job shows its results');
  t.regex(page.body, /&lt;b&gt;odd &quot;name&quot;/, 'names are escaped');
  const file = await fetch(`${svc.url.clearnet}${jobPath}/file/0`, { headers: { cookie: alice.web.cookie } });
  t.is(file.status, 200);
  t.regex(file.headers.get('content-disposition')!, /^attachment; filename="/);
  t.is(file.headers.get('content-type'), 'image/jpeg');

  t.is((await bob.web.get(jobPath)).status, 404);
  t.is((await bob.web.get(`${jobPath}/file/0`)).status, 404);
  t.is((await alice.web.get(`${jobPath}/file/7`)).status, 404);

  // a bad option: the API's own message, the typed values back, the uploaded file destroyed
  await alice.web.get('/convert');
  const bad = new FormData();
  bad.append('csrf', alice.web.csrf);
  bad.append('files', new Blob([payload(4096)]), 'x.png');
  bad.append('image_format', 'jpeg');
  bad.append('lossless', 'true');
  bad.append('width', '99999');
  const refused = await alice.web.postMultipart('/convert', bad);
  t.is(refused.status, 422);
  t.regex(refused.body, /width must be a whole number from 1 to 16384|JPEG has no lossless mode/);
  t.regex(refused.body, /value="99999"/);
  const live = svc.services.db!.prepare("SELECT count(*) AS n FROM uploads WHERE state IN ('uploading', 'completed') AND account_id = ?").get((await svc.services.accounts.get(alice.email)).id)!.n;
  t.is(live, 1, 'only the first job’s input is left');
  t.false(svc.logs.join('').includes(MARKER));
});
