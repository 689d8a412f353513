// The pages of the mailed links: "forgot your password?" and the reset link, "mail me a sign-in
// link" and the link itself, and the refusal of a sign-up someone else started. A link only
// shows a button on GET: a mail scanner fetching links spends nothing.
import type { Router } from '@koa/router';
import { newRouter } from '../router.ts';
import type { AccountRecovery } from '../../domain/account-recovery.ts';
import type { Account } from '../../domain/ports.ts';
import { hasCode } from '../../domain/errors.ts';
import { PASSWORD_MIN } from '../../domain/passwords.ts';
import type { SelfService } from '../../domain/self-service.ts';
import type { WebSessions } from '../../domain/web-sessions.ts';
import type { AppState, Ctx } from '../context.ts';
import { visitorId } from '../visitor-id.ts';
import { linksFor, one } from './account-pages.ts';
import { readForm } from './form.ts';
import { refusedNotice, render, wordsOf } from './respond.ts';
import { switchVisitor } from './visitor.ts';
import { signInView } from './views/sign-in.ts';
import { forgotView, linkSentView, refuseView, resetView, signInLinkView } from './views/recovery.ts';

export interface RecoveryPageDeps {
  recovery: AccountRecovery;
  selfService: SelfService;
  webSessions: WebSessions;
  clientHeader?: string;
}

const tokenOf = (ctx: Ctx) => (typeof ctx.query.token === 'string' ? ctx.query.token : '');

export function recoveryPages(d: RecoveryPageDeps): Router<AppState> {
  const router = newRouter();
  const csrf = (ctx: Ctx) => (presented: unknown) => d.webSessions.csrfValid(ctx.state.web?.token, presented);
  const visitor = (ctx: Ctx) => visitorId(ctx, d.clientHeader);
  /** A mailed link signed the person in: this browser's new session, and their account page. */
  const signedInByLink = async (ctx: Ctx, account: Account) => {
    await switchVisitor(ctx, d.webSessions, { account, how: { network: ctx.state.network, method: 'link' } });
    ctx.status = 303;
    ctx.redirect('/account');
  };

  router.get('/forgot', (ctx) => {
    const words = wordsOf(ctx);
    render(ctx, { title: words.t('forgot.title') }, forgotView({ csrf: ctx.state.web!.csrf, words }));
  });

  router.post('/forgot', async (ctx) => {
    const f = await readForm(ctx, csrf(ctx));
    const words = wordsOf(ctx);
    try {
      await d.recovery.requestReset(one(f, 'email'), linksFor(ctx), visitor(ctx), words.lang);
      render(ctx, { title: words.t('mailSent.title') }, linkSentView({ email: one(f, 'email').trim(), words }));
    } catch (err) {
      const notice = refusedNotice(ctx, err);
      render(ctx, { title: words.t('forgot.title'), notice }, forgotView({ csrf: ctx.state.web!.csrf, email: one(f, 'email'), words }), ctx.status);
    }
  });

  router.get('/reset', async (ctx) => {
    const token = tokenOf(ctx);
    const usable = await d.recovery.linkUsable(token, 'reset');
    const words = wordsOf(ctx);
    render(ctx, { title: words.t('reset.title') }, resetView({ csrf: ctx.state.web!.csrf, token, minPassword: PASSWORD_MIN, state: usable ? 'form' : 'invalid', words }), usable ? 200 : 410);
  });

  router.post('/reset', async (ctx) => {
    const f = await readForm(ctx, csrf(ctx));
    const token = one(f, 'token');
    try {
      const account = await d.recovery.reset(token, { password: one(f, 'password'), passwordAgain: one(f, 'password_again') }, visitor(ctx));
      await signedInByLink(ctx, account);
    } catch (err) {
      const notice = refusedNotice(ctx, err);
      const state = (await d.recovery.linkUsable(token, 'reset')) ? 'form' : 'invalid';
      const words = wordsOf(ctx);
      render(ctx, { title: words.t('reset.title'), notice }, resetView({ csrf: ctx.state.web!.csrf, token, minPassword: PASSWORD_MIN, state, words }), ctx.status);
    }
  });

  router.post('/sign-in/mail', async (ctx) => {
    const f = await readForm(ctx, csrf(ctx));
    const words = wordsOf(ctx);
    try {
      await d.recovery.requestSignInLink(one(f, 'email'), linksFor(ctx), visitor(ctx), words.lang);
      render(ctx, { title: words.t('mailSent.title') }, linkSentView({ email: one(f, 'email').trim(), words }));
    } catch (err) {
      const notice = refusedNotice(ctx, err, (e) => (hasCode(e, 'invalid_email', 'missing_credentials') ? 'link-email' : undefined));
      render(ctx, { title: words.t('signIn.title'), notice }, signInView({ csrf: ctx.state.web!.csrf, email: one(f, 'email'), mail: d.recovery.open, words }), ctx.status);
    }
  });

  router.get('/sign-in/link', async (ctx) => {
    const token = tokenOf(ctx);
    const usable = await d.recovery.linkUsable(token, 'sign-in');
    const words = wordsOf(ctx);
    render(ctx, { title: words.t('signIn.title') }, signInLinkView({ csrf: ctx.state.web!.csrf, token, state: usable ? 'confirm' : 'invalid', words }), usable ? 200 : 410);
  });

  router.post('/sign-in/link', async (ctx) => {
    const f = await readForm(ctx, csrf(ctx));
    try {
      const account = await d.recovery.signInWithLink(one(f, 'token'), visitor(ctx));
      await signedInByLink(ctx, account);
    } catch (err) {
      const notice = refusedNotice(ctx, err);
      const words = wordsOf(ctx);
      render(ctx, { title: words.t('signIn.title'), notice }, signInLinkView({ csrf: ctx.state.web!.csrf, token: '', state: 'invalid', words }), ctx.status);
    }
  });

  router.get('/refuse', async (ctx) => {
    const token = tokenOf(ctx);
    const usable = await d.selfService.linkUsable(token);
    const words = wordsOf(ctx);
    render(ctx, { title: words.t('refuse.title') }, refuseView({ csrf: ctx.state.web!.csrf, token, state: usable ? 'confirm' : 'invalid', words }), usable ? 200 : 410);
  });

  router.post('/refuse', async (ctx) => {
    const f = await readForm(ctx, csrf(ctx));
    try {
      await d.selfService.refuse(one(f, 'token'), visitor(ctx));
      // a browser signed in to the refused account is signed in to nothing now
      if (ctx.state.web!.account && !(await d.webSessions.resolve(ctx.state.web!.token))) await switchVisitor(ctx, d.webSessions, undefined);
      const words = wordsOf(ctx);
      render(ctx, { title: words.t('refuse.done.title') }, refuseView({ csrf: ctx.state.web!.csrf, token: '', state: 'done', words }));
    } catch (err) {
      const notice = refusedNotice(ctx, err);
      const words = wordsOf(ctx);
      render(ctx, { title: words.t('refuse.title'), notice }, refuseView({ csrf: ctx.state.web!.csrf, token: '', state: 'invalid', words }), ctx.status);
    }
  });

  return router;
}
