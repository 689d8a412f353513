// The account surface against the real service, its database and a real SMTP catcher (issue 22,
// findings 5 to 7): a revoked key takes its web sessions with it and the page lists and ends
// sessions; the brakes fall on the visitor who fails, not on everyone or on the owner; an address
// cannot be claimed first, a sign-up can be refused, unverified accounts expire, and a forgotten
// password is reset by a mailed link.
import test from 'ava';
import { startMailCatcher, type MailCatcher } from './helpers/mail-catcher.ts';
import { startService, type RunningService } from './helpers/service.ts';
import { WebClient, type Answer } from './helpers/web-client.ts';

const PASSWORD = 'a long enough password';
const OTHER_PASSWORD = 'quite another passphrase';

async function withMail(t: { teardown(fn: () => Promise<void>): void }, env: Record<string, string> = {}): Promise<{ svc: RunningService; mail: MailCatcher }> {
  const mail = await startMailCatcher();
  const svc = await startService({ OBSCURA_SMTP_URL: mail.url, ...env });
  t.teardown(async () => {
    await svc.close();
    await mail.close();
  });
  return { svc, mail };
}

/** The link of `path` in a mail (verify, refuse, reset, sign-in/link) and its token. */
function linkIn(text: string | undefined, path: string): { url: string; token: string } {
  const m = new RegExp(`(http://\\S+${path.replace(/[/?]/g, '\\$&')}\\?token=([A-Za-z0-9_-]{43}))`).exec(text ?? '');
  if (!m) throw new Error(`no ${path} link in: ${text}`);
  return { url: m[1], token: m[2] };
}

/** Signs in with a key, then opens the account page (whose forms carry the session's token). */
async function keySignIn(web: WebClient, key: string): Promise<Answer> {
  await web.get('/sign-in');
  const r = await web.post('/sign-in', { method: 'key', api_key: key });
  if (r.status === 303) await web.get('/account');
  return r;
}

const sessionIds = (page: Answer) => [...page.body.matchAll(/action="\/account\/sessions\/end"[^>]*>[\s\S]*?name="session" value="([^"]+)"/g)].map((m) => m[1]);

test('revoking a key ends the web sessions it opened; the account page lists the sessions (when, network, how) and ends them', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { email, key: stolen } = await svc.account();
  await svc.services.selfService.setPassword(await svc.services.accounts.get(email), PASSWORD);

  // the thief signs in with the stolen key over the onion and makes a key of their own
  const thief = new WebClient(svc.url.onion);
  await thief.get('/sign-in');
  t.is((await thief.post('/sign-in', { method: 'key', api_key: stolen })).status, 303);
  await thief.get('/account'); // the form's token for the signed-in session
  const made = await thief.post('/account/keys', {});
  t.is(made.status, 201);
  const thiefKey = /id="new-key"[^>]*>([^<]+)</.exec(made.body)![1];

  // the owner sees both sessions, with the network and the way in, and none of the thief's details
  const owner = new WebClient(svc.url.clearnet);
  t.is((await owner.signIn(email, PASSWORD)).status, 303);
  const page = await owner.get('/account');
  t.regex(page.body, /Where you are signed in/);
  const rows = [...page.body.matchAll(/<tr class="session">[\s\S]*?<\/tr>/g)].map((m) => m[0]);
  t.is(rows.length, 2);
  t.truthy(rows.find((r) => /Tor onion/.test(r) && /API key/.test(r) && /sessions\/end/.test(r)), 'the thief’s session, by key over the onion');
  t.truthy(rows.find((r) => /<td>web<\/td>/.test(r) && /<td>password<\/td>/.test(r) && /this browser/.test(r) && !/sessions\/end/.test(r)), 'this one');
  t.notRegex(page.body, /127\.0\.0\.1/, 'no address of anyone');

  // revoking the stolen key signs the thief out everywhere it signed them in
  const id = (await svc.services.apiKeys.list(email)).find((k) => stolen.endsWith(k.shown.slice(-4)))!.id;
  const revoked = await owner.post('/account/keys/revoke', { key_id: id });
  t.is(revoked.status, 200);
  t.regex(revoked.body, /web sessions it signed in are ended/);
  const after = await thief.get('/account');
  t.is(after.status, 303, 'the session the stolen key opened is gone');
  t.is(after.headers.get('location'), '/sign-in');
  t.is(sessionIds(await owner.get('/account')).length, 0, 'the page lists only the owner’s own session now');

  // the key the thief made still works (the owner sees it listed and can revoke it); its session is ended from the page
  t.is((await keySignIn(thief, thiefKey)).status, 303);
  const [other] = sessionIds(await owner.get('/account'));
  t.truthy(other);
  const ended = await owner.post('/account/sessions/end', { session: other });
  t.is(ended.status, 200);
  t.regex(ended.body, /The session is ended/);
  t.is((await thief.get('/account')).status, 303);
  t.is((await owner.post('/account/sessions/end', { session: other })).status, 404, 'ended once');

  // "end all other sessions" keeps this browser only; one account cannot end another's session
  t.is((await keySignIn(thief, thiefKey)).status, 303);
  const second = new WebClient(svc.url.i2p);
  t.is((await second.signIn(email, PASSWORD)).status, 303);
  await second.get('/account');
  const stranger = await svc.account();
  const strangerWeb = new WebClient(svc.url.clearnet);
  await strangerWeb.get('/sign-in');
  t.is((await keySignIn(strangerWeb, stranger.key)).status, 303);
  const theirs = sessionIds(await owner.get('/account'));
  t.is(theirs.length, 2);
  t.is((await strangerWeb.post('/account/sessions/end', { session: theirs[0] })).status, 404, 'not the stranger’s session');
  const all = await owner.post('/account/sessions/end-others', {});
  t.regex(all.body, /2 other sessions are ended/);
  t.is((await thief.get('/account')).status, 303);
  t.is((await second.get('/account')).status, 303);
  t.is((await owner.get('/account')).status, 200);
  t.is((await strangerWeb.get('/account')).status, 200);

  // the command line's revoke ends the key's sessions too
  t.is((await keySignIn(thief, thiefKey)).status, 303);
  const thiefKeyId = (await svc.services.apiKeys.list(email)).find((k) => thiefKey.endsWith(k.shown.slice(-4)))!.id;
  await svc.services.apiKeys.revoke(thiefKeyId);
  t.is((await thief.get('/account')).status, 303);
});

test('brakes fall on the visitor who fails: one client cannot hold the shared ones on, and a braked address still gets in by key or mailed link', async (t) => {
  t.timeout(90_000);
  // low shared thresholds, the ones the old brakes locked everyone out at
  const { svc, mail } = await withMail(t, {
    OBSCURA_CLEARNET_CLIENT_HEADER: 'X-Forwarded-For',
    OBSCURA_SIGN_IN_FAILURES_TOTAL: '8',
    OBSCURA_SIGN_UPS_PER_HOUR: '4',
    OBSCURA_VERIFY_ATTEMPTS_PER_MINUTE: '30',
    OBSCURA_SIGN_IN_FAILURES: '3',
    OBSCURA_WEB_SLOWDOWN: '10ms',
  });
  const { email, key } = await svc.account();
  await svc.services.selfService.setPassword(await svc.services.accounts.get(email), PASSWORD);
  // a person with a fresh sign-up waiting for its verification
  const newcomer = new WebClient(svc.url.clearnet, { 'x-forwarded-for': '198.51.100.7' });
  await newcomer.get('/sign-up');
  t.is((await newcomer.post('/sign-up', { email: 'newcomer@example.org', password: PASSWORD, password_again: PASSWORD })).status, 200);
  const verify = linkIn((await mail.next('newcomer@example.org')).text, '/verify');

  // one anonymous client: 8 failed sign-ins on random addresses, 31 junk links, 4 sign-ups
  const attacker = new WebClient(svc.url.clearnet, { 'x-forwarded-for': '203.0.113.66' });
  await attacker.get('/sign-in');
  const signIns: number[] = [];
  for (let i = 0; i < 8; i++) signIns.push((await attacker.post('/sign-in', { method: 'password', email: `random${i}@example.org`, password: `guess ${i}` })).status);
  t.deepEqual(signIns, [401, 401, 401, 401, 401, 429, 429, 429], 'the attacker waits after 5');
  const junk: number[] = [];
  for (let i = 0; i < 31; i++) junk.push((await attacker.post('/verify', { token: 'x'.repeat(43) })).status);
  t.is(junk.filter((s) => s === 410).length, 30);
  t.is(junk.at(-1), 429, 'the attacker waits after 30 bad links');
  const signUps: number[] = [];
  for (let i = 0; i < 4; i++) signUps.push((await attacker.post('/sign-up', { email: `junk${i}@example.org`, password: PASSWORD, password_again: PASSWORD })).status);
  t.deepEqual(signUps, [200, 200, 200, 429], 'three sign-ups an hour from one visitor');

  // everyone else: the right password, a valid verification link, a real sign-up
  const person = new WebClient(svc.url.clearnet, { 'x-forwarded-for': '192.0.2.10' });
  t.is((await person.signIn(email, PASSWORD)).status, 303, 'the right password gets in');
  const verified = await newcomer.post('/verify', { token: verify.token });
  t.is(verified.status, 200, 'a valid verification link works');
  const another = new WebClient(svc.url.clearnet, { 'x-forwarded-for': '192.0.2.11' });
  await another.get('/sign-up');
  t.is((await another.post('/sign-up', { email: 'another@example.org', password: PASSWORD, password_again: PASSWORD })).status, 200, 'a real sign-up goes through');

  // wrong passwords for one address from three clients brake its password, for everyone...
  for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
    const w = new WebClient(svc.url.clearnet, { 'x-forwarded-for': ip });
    t.is((await w.signIn(email, 'not the password')).status, 401);
  }
  const owner = new WebClient(svc.url.clearnet, { 'x-forwarded-for': '192.0.2.20' });
  const braked = await owner.signIn(email, PASSWORD);
  t.is(braked.status, 429);
  t.regex(braked.body, /API keys, or have a sign-in link mailed to you/);
  // ...but not the owner's key, nor a sign-in link mailed to the owner
  t.is((await owner.post('/sign-in', { method: 'key', api_key: key })).status, 303, 'the key signs in');
  const byLink = new WebClient(svc.url.onion);
  const asked = await byLink.get('/sign-in');
  t.regex(asked.body, /Mail me a sign-in link/);
  const sent = await byLink.post('/sign-in/mail', { email });
  t.is(sent.status, 200);
  t.regex(sent.body, /a link is on its way/);
  const unknown = await byLink.post('/sign-in/mail', { email: 'nobody@example.org' });
  t.is(unknown.body.replace(/nobody@example\.org/g, email).replace(/value="[^"]+"/g, ''), sent.body.replace(/value="[^"]+"/g, ''), 'the same answer for an address without an account');
  // strangers asking for the owner's link neither fill the mailbox nor use up the owner's mail
  for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
    const w = new WebClient(svc.url.clearnet, { 'x-forwarded-for': ip });
    await w.get('/sign-in');
    t.is((await w.post('/sign-in/mail', { email })).status, 200);
  }
  await svc.services.recovery.settled();
  const signInMail = await mail.next(email);
  t.regex(signInMail.text!, /link to sign in/);
  t.is(mail.mails.filter((m) => /link to sign in/.test(m.text ?? '')).length, 1, 'one link per link life, whoever asks');
  const link = linkIn(signInMail.text, '/sign-in/link');
  t.true(link.url.startsWith(svc.url.onion), 'a link for the network it was asked on');
  t.is((await byLink.get(`/sign-in/link?token=${link.token}`)).status, 200, 'opening the link alone signs no one in');
  t.is((await byLink.get('/account')).status, 303);
  const inByLink = await byLink.post('/sign-in/link', { token: link.token });
  t.is(inByLink.status, 303);
  t.is(inByLink.headers.get('location'), '/account');
  t.regex((await byLink.get('/account')).body, /<td>Tor onion<\/td>\s*<td>mailed link<\/td>/);
  const reused = new WebClient(svc.url.onion);
  await reused.get('/sign-in');
  t.is((await reused.post('/sign-in/link', { token: link.token })).status, 410, 'a sign-in link works once');
  t.false(mail.mails.some((m) => JSON.stringify(m.to).includes('nobody@example.org')), 'no mail to an address without an account');

  const logs = svc.logs.join('');
  for (const secret of [email, '203.0.113.66', '192.0.2.10', link.token, PASSWORD]) t.false(logs.includes(secret), secret);
});

test('an address cannot be claimed first: the owner’s sign-up takes an unverified account over, the mail lets them refuse, unverified accounts expire', async (t) => {
  t.timeout(90_000);
  const { svc, mail } = await withMail(t);
  const journalist = 'journalist@example.org';

  // the attacker signs up with the journalist's address and signs in with their own password
  const attacker = new WebClient(svc.url.clearnet, {});
  await attacker.get('/sign-up');
  t.is((await attacker.post('/sign-up', { email: journalist, password: OTHER_PASSWORD, password_again: OTHER_PASSWORD })).status, 200);
  t.is((await attacker.signIn(journalist, OTHER_PASSWORD)).status, 303);
  const first = await mail.next(journalist);
  t.regex(first.subject!, /Someone asked to create an Obscura account/);
  t.regex(first.text!, /If it was NOT you, refuse it here/);
  t.regex(first.text!, /Do not verify a sign-up you did not start/);
  t.regex(first.text!, /deleted after 24 hours/);
  const firstVerify = linkIn(first.text, '/verify');
  linkIn(first.text, '/refuse');

  // the owner's own sign-up is a sign-up, not "already has an account"
  const owner = new WebClient(svc.url.onion);
  await owner.get('/sign-up');
  t.is((await owner.post('/sign-up', { email: journalist, password: PASSWORD, password_again: PASSWORD })).status, 200);
  const second = await mail.next(journalist);
  t.notRegex(second.text!, /already has one/);
  const ownVerify = linkIn(second.text, '/verify');
  t.is((await attacker.get('/account')).status, 303, 'the attacker’s session ended with the takeover');
  t.is((await owner.get(`/verify?token=${firstVerify.token}`)).status, 410, 'the first link verifies nothing now');
  t.is((await owner.post('/verify', { token: firstVerify.token })).status, 410);
  t.is((await owner.post('/verify', { token: ownVerify.token })).status, 200);
  t.is((await new WebClient(svc.url.clearnet).signIn(journalist, OTHER_PASSWORD)).status, 401, 'the attacker’s password is gone');
  t.is((await owner.signIn(journalist, PASSWORD)).status, 303, 'the owner holds the account');
  // now it is taken: a sign-up only tells the owner
  const late = new WebClient(svc.url.i2p);
  await late.get('/sign-up');
  t.is((await late.post('/sign-up', { email: journalist, password: OTHER_PASSWORD, password_again: OTHER_PASSWORD })).status, 200);
  const taken = await mail.next(journalist);
  t.regex(taken.text!, /already has one/);
  t.regex(taken.text!, /\/forgot/);

  // a sign-up the owner did not start is refused from the mail: the account goes, the address is free
  await attacker.get('/sign-up');
  t.is((await attacker.post('/sign-up', { email: 'editor@example.org', password: OTHER_PASSWORD, password_again: OTHER_PASSWORD })).status, 200);
  const refuse = linkIn((await mail.next('editor@example.org')).text, '/refuse');
  const editor = new WebClient(svc.url.clearnet);
  const confirm = await editor.get(`/refuse?token=${refuse.token}`);
  t.is(confirm.status, 200);
  t.regex(confirm.body, /It was not me: delete it/);
  t.truthy(await svc.services.accounts.get('editor@example.org'), 'opening the link alone deletes nothing');
  const refused = await editor.post('/refuse', { token: refuse.token });
  t.is(refused.status, 200);
  t.regex(refused.body, /The sign-up is refused/);
  await t.throwsAsync(() => svc.services.accounts.get('editor@example.org'));
  t.is((await new WebClient(svc.url.clearnet).signIn('editor@example.org', OTHER_PASSWORD)).status, 401);
  t.is((await editor.post('/refuse', { token: refuse.token })).status, 410, 'works once');

  // an unverified account goes after its life (24 h by default) with the sweep; a verified one stays
  await attacker.get('/sign-up');
  t.is((await attacker.post('/sign-up', { email: 'desk@example.org', password: OTHER_PASSWORD, password_again: OTHER_PASSWORD })).status, 200);
  await mail.next('desk@example.org');
  await svc.services.selfService.sweep(Date.now() + 23 * 3_600_000);
  t.truthy(await svc.services.accounts.get('desk@example.org'), 'not yet');
  await svc.services.selfService.sweep(Date.now() + 24 * 3_600_000 + 60_000);
  await t.throwsAsync(() => svc.services.accounts.get('desk@example.org'));
  t.truthy(await svc.services.accounts.get(journalist));
});

test('password reset: the same answer for any address, a single-use link that sets a new password and signs everyone else out', async (t) => {
  t.timeout(90_000);
  const { svc, mail } = await withMail(t, { OBSCURA_MAIL_REQUESTS_PER_VISITOR: '3', OBSCURA_CLEARNET_CLIENT_HEADER: 'X-Forwarded-For' });
  const { email } = await svc.account();
  await svc.services.selfService.setPassword(await svc.services.accounts.get(email), OTHER_PASSWORD);
  // someone who has the old password is signed in
  const intruder = new WebClient(svc.url.onion);
  t.is((await intruder.signIn(email, OTHER_PASSWORD)).status, 303);

  const web = new WebClient(svc.url.clearnet, { 'x-forwarded-for': '198.51.100.61' });
  const signInPage = await web.get('/sign-in');
  t.regex(signInPage.body, /href="\/forgot"/);
  t.is((await web.get('/forgot')).status, 200);
  const unknown = await web.post('/forgot', { email: 'nobody@example.org' });
  const known = await web.post('/forgot', { email });
  t.is(unknown.status, 200);
  t.is(known.status, 200);
  t.is(unknown.body.replace(/nobody@example\.org/g, email).replace(/value="[^"]+"/g, ''), known.body.replace(/value="[^"]+"/g, ''), 'the same page either way');
  const resetMail = await mail.next(email);
  t.regex(resetMail.subject!, /Set a new password/);
  t.regex(resetMail.text!, /If it was not you, ignore this mail/);
  const { token } = linkIn(resetMail.text, '/reset');
  t.false(mail.mails.some((m) => JSON.stringify(m.to).includes('nobody@example.org')));

  const form = await web.get(`/reset?token=${token}`);
  t.is(form.status, 200);
  t.regex(form.body, /name="password_again"/);
  const weak = await web.post('/reset', { token, password: 'short', password_again: 'short' });
  t.is(weak.status, 422);
  t.regex(weak.body, /weak_password/);
  t.is((await web.get(`/reset?token=${token}`)).status, 200, 'a refused password does not spend the link');
  const done = await web.post('/reset', { token, password: PASSWORD, password_again: PASSWORD });
  t.is(done.status, 303);
  t.is(done.headers.get('location'), '/account');
  t.is((await web.get('/account')).status, 200, 'this browser is signed in');
  t.is((await intruder.get('/account')).status, 303, 'every other session ended');
  t.is((await new WebClient(svc.url.clearnet).signIn(email, OTHER_PASSWORD)).status, 401, 'the old password is gone');
  t.is((await new WebClient(svc.url.clearnet).signIn(email, PASSWORD)).status, 303);
  t.is((await web.post('/reset', { token, password: OTHER_PASSWORD, password_again: OTHER_PASSWORD })).status, 410, 'the link works once');

  // the requests are braked per visitor
  const third = await web.post('/forgot', { email: 'someone@example.org' });
  t.is(third.status, 200);
  const fourth = await web.post('/forgot', { email: 'someone-else@example.org' });
  t.is(fourth.status, 429);
  t.truthy(fourth.headers.get('retry-after'));
  t.is((await new WebClient(svc.url.i2p).get('/forgot')).status, 200);

  const logs = svc.logs.join('');
  for (const secret of [email, token, PASSWORD, OTHER_PASSWORD]) t.false(logs.includes(secret), secret);
});
