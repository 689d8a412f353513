// The pages about the person: home, sign-in (password or API key), sign-up, the address
// verification link, the account with its keys and web sessions, sign-out. The mailed links for
// reset and sign-in are in recovery-pages.ts.
import type { Router } from '@koa/router';
import { newRouter } from '../router.ts';
import type { ApiKeys } from '../../domain/api-keys.ts';
import { AppError, hasCode } from '../../domain/errors.ts';
import { refusalError } from '../../domain/web-brakes.ts';
import type { SelfService, MailLinks } from '../../domain/self-service.ts';
import type { SignedInBy, WebSessions } from '../../domain/web-sessions.ts';
import { PASSWORD_MIN } from '../../domain/passwords.ts';
import type { Account } from '../../domain/ports.ts';
import { urlFor, type AppState, type Ctx } from '../context.ts';
import { identify } from '../middleware/auth.ts';
import { visitorId } from '../visitor-id.ts';
import { fieldByCode } from './field-errors.ts';
import { readForm, type Fields } from './form.ts';
import { refusedNotice, render, wordsOf } from './respond.ts';
import { switchVisitor } from './visitor.ts';
import { accountView } from './views/account.ts';
import { homeView } from './views/home.ts';
import { signInView } from './views/sign-in.ts';
import { signUpSentView, signUpView } from './views/sign-up.ts';
import { verifyView } from './views/verify.ts';

export interface AccountPageDeps {
  apiKeys: ApiKeys;
  webSessions: WebSessions;
  selfService: SelfService;
  /** The header the clearnet proxy names the client in (config.web.clearnetClientHeader). */
  clientHeader?: string;
  limits: { fileMaxBytes: number; sessionMaxFiles: number; expiryDefault: string; expiryMax: string };
}

export const one = (f: Fields, name: string) => f[name]?.[0] ?? '';

/** Mail links on the network the request came in on: a sign-up over the onion gets an onion link. */
export const linksFor = (ctx: Ctx): MailLinks => ({
  verify: (token) => urlFor(ctx, `/verify?token=${token}`),
  refuse: (token) => urlFor(ctx, `/refuse?token=${token}`),
  reset: (token) => urlFor(ctx, `/reset?token=${token}`),
  signInWith: (token) => urlFor(ctx, `/sign-in/link?token=${token}`),
  signIn: urlFor(ctx, '/sign-in'),
  forgot: urlFor(ctx, '/forgot'),
});

/** The signed-in account, or a 303 to the sign-in page. */
export function person(ctx: Ctx): Account | undefined {
  const account = ctx.state.web?.account;
  if (!account) {
    ctx.status = 303;
    ctx.redirect('/sign-in');
  }
  return account;
}

export function accountPages(d: AccountPageDeps): Router<AppState> {
  const router = newRouter();
  const csrf = (ctx: Ctx) => (presented: unknown) => d.webSessions.csrfValid(ctx.state.web?.token, presented);
  /** When what was just done ended this browser's own session: signed out, and sent to sign in (true). */
  const endedHere = async (ctx: Ctx): Promise<boolean> => {
    if (await d.webSessions.resolve(ctx.state.web!.token)) return false;
    await switchVisitor(ctx, d.webSessions, undefined);
    ctx.status = 303;
    ctx.redirect('/sign-in');
    return true;
  };

  router.get('/', (ctx) => {
    const words = wordsOf(ctx);
    render(ctx, { title: words.t('home.title') }, homeView({ signedIn: !!ctx.state.web!.account, signUpOpen: d.selfService.signUpOpen, limits: d.limits, words }));
  });

  router.get('/sign-in', (ctx) => {
    if (ctx.state.web!.account) return ctx.redirect('/account');
    const words = wordsOf(ctx);
    render(ctx, { title: words.t('signIn.title') }, signInView({ csrf: ctx.state.web!.csrf, mail: d.selfService.signUpOpen, words }));
  });

  router.post('/sign-in', async (ctx) => {
    const f = await readForm(ctx, csrf(ctx));
    let account: Account;
    let how: SignedInBy;
    const network = ctx.state.network;
    try {
      if (one(f, 'method') === 'key') {
        // a key is not braked per address: it is the way in for a person whose password is
        const found = await identify(d.apiKeys, ctx.state.limits, one(f, 'api_key').trim() || undefined, 'X-Api-Key');
        if ('braked' in found) throw refusalError(found.braked);
        account = found.account;
        how = { network, method: 'key', keyId: found.keyId };
      } else {
        account = await d.selfService.signIn({ email: one(f, 'email'), password: one(f, 'password') }, visitorId(ctx, d.clientHeader));
        how = { network, method: 'password' };
      }
    } catch (err) {
      const notice = refusedNotice(ctx, err, one(f, 'method') === 'key' ? (e) => (hasCode(e, 'missing_api_key', 'malformed_api_key', 'invalid_api_key') ? 'api-key' : undefined) : fieldByCode);
      const words = wordsOf(ctx);
      return render(ctx, { title: words.t('signIn.title'), notice }, signInView({ csrf: ctx.state.web!.csrf, email: one(f, 'email'), mail: d.selfService.signUpOpen, words }), ctx.status);
    }
    await switchVisitor(ctx, d.webSessions, { account, how });
    ctx.status = 303;
    ctx.redirect('/account');
  });

  router.post('/sign-out', async (ctx) => {
    await readForm(ctx, csrf(ctx));
    await switchVisitor(ctx, d.webSessions, undefined);
    ctx.status = 303;
    ctx.redirect('/');
  });

  router.get('/sign-up', (ctx) => {
    const words = wordsOf(ctx);
    render(ctx, { title: words.t('signUp.title') }, signUpView({ csrf: ctx.state.web!.csrf, open: d.selfService.signUpOpen, minPassword: PASSWORD_MIN, words }), d.selfService.signUpOpen ? 200 : 403);
  });

  router.post('/sign-up', async (ctx) => {
    const f = await readForm(ctx, csrf(ctx));
    const words = wordsOf(ctx);
    try {
      const input = { email: one(f, 'email'), password: one(f, 'password'), passwordAgain: one(f, 'password_again') };
      const { email } = await d.selfService.signUp(input, linksFor(ctx), visitorId(ctx, d.clientHeader), words.lang);
      render(ctx, { title: words.t('mailSent.title') }, signUpSentView({ email, words }));
    } catch (err) {
      const notice = refusedNotice(ctx, err);
      const view = signUpView({ csrf: ctx.state.web!.csrf, open: d.selfService.signUpOpen, email: one(f, 'email'), minPassword: PASSWORD_MIN, words });
      render(ctx, { title: words.t('signUp.title'), notice }, view, ctx.status);
    }
  });

  // The link in the mail only shows a button: a mail scanner fetching links spends nothing.
  router.get('/verify', async (ctx) => {
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    const usable = await d.selfService.linkUsable(token);
    const words = wordsOf(ctx);
    render(ctx, { title: words.t('verify.title') }, verifyView({ csrf: ctx.state.web!.csrf, token, state: usable ? 'confirm' : 'invalid', words }), usable ? 200 : 410);
  });

  router.post('/verify', async (ctx) => {
    const f = await readForm(ctx, csrf(ctx));
    const words = wordsOf(ctx);
    try {
      const account = await d.selfService.verify(one(f, 'token'), visitorId(ctx, d.clientHeader));
      const web = ctx.state.web!;
      if (web.account?.id === account.id) web.account = account;
      render(ctx, { title: words.t('verify.done.title'), notice: { kind: 'ok', message: words.t('verify.done.notice') } }, verifyView({ csrf: web.csrf, token: '', state: 'done', words }));
    } catch (err) {
      const notice = refusedNotice(ctx, err);
      render(ctx, { title: words.t('verify.title'), notice }, verifyView({ csrf: ctx.state.web!.csrf, token: '', state: 'invalid', words }), ctx.status);
    }
  });

  const accountPage = async (ctx: Ctx, account: Account, extra: { newKey?: string; notice?: { kind: 'ok' | 'error'; message: string; code?: string } } = {}, status = 200) => {
    const words = wordsOf(ctx);
    render(
      ctx,
      { title: words.t('account.title'), notice: extra.notice },
      accountView({
        words,
        csrf: ctx.state.web!.csrf,
        email: account.email,
        verified: account.verifiedAt !== null,
        keys: await d.apiKeys.list(account.email),
        sessions: await d.webSessions.list(account.id, ctx.state.web!.token),
        newKey: extra.newKey,
        resendable: account.verifiedAt === null && d.selfService.signUpOpen,
      }),
      status,
    );
  };

  router.get('/account', async (ctx) => {
    const account = person(ctx);
    if (account) await accountPage(ctx, account);
  });

  router.post('/account/keys', async (ctx) => {
    const account = person(ctx);
    if (!account) return;
    await readForm(ctx, csrf(ctx));
    if (account.verifiedAt === null) {
      const notice = refusedNotice(ctx, new AppError('account_not_verified', 'Verify your e-mail address first: keys of an unverified account do not work.'));
      return await accountPage(ctx, account, { notice: { ...notice, message: wordsOf(ctx).t('account.keys.needVerified') } }, ctx.status);
    }
    const { key } = await d.apiKeys.issue(account.email);
    await accountPage(ctx, account, { newKey: key, notice: { kind: 'ok', message: wordsOf(ctx).t('account.keys.made') } }, 201);
  });

  router.post('/account/keys/revoke', async (ctx) => {
    const account = person(ctx);
    if (!account) return;
    const f = await readForm(ctx, csrf(ctx));
    const id = one(f, 'key_id');
    if (!(await d.apiKeys.list(account.email)).some((k) => k.id === id)) throw new AppError('key_not_found', 'No such key on your account.');
    await d.apiKeys.revoke(id);
    if (await endedHere(ctx)) return; // the key signed this browser in
    await accountPage(ctx, account, { notice: { kind: 'ok', message: wordsOf(ctx).t('account.keys.revokedNotice') } });
  });

  router.post('/account/sessions/end', async (ctx) => {
    const account = person(ctx);
    if (!account) return;
    const f = await readForm(ctx, csrf(ctx));
    if (!(await d.webSessions.end(account.id, one(f, 'session')))) throw new AppError('session_not_found', 'No such session on your account; it may have ended already.');
    if (await endedHere(ctx)) return;
    await accountPage(ctx, account, { notice: { kind: 'ok', message: wordsOf(ctx).t('account.sessions.ended') } });
  });

  router.post('/account/sessions/end-others', async (ctx) => {
    const account = person(ctx);
    if (!account) return;
    await readForm(ctx, csrf(ctx));
    const n = await d.webSessions.endOthers(account.id, ctx.state.web!.token);
    await accountPage(ctx, account, { notice: { kind: 'ok', message: wordsOf(ctx).t('account.sessions.othersEnded', { count: n }) } });
  });

  router.post('/account/verify-mail', async (ctx) => {
    const account = person(ctx);
    if (!account) return;
    await readForm(ctx, csrf(ctx));
    try {
      await d.selfService.resendVerification(account, linksFor(ctx), wordsOf(ctx).lang);
      await accountPage(ctx, account, { notice: { kind: 'ok', message: wordsOf(ctx).t('account.linkResent') } });
    } catch (err) {
      await accountPage(ctx, account, { notice: refusedNotice(ctx, err) }, ctx.status);
    }
  });

  return router;
}
