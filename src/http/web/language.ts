// The language of the pages: the person's choice (a session cookie, set by the chooser on every
// page or the /language page), else Accept-Language unless it is Tor Browser's spoofed one, else
// English. The choice is kept only in the browser: no Max-Age, SameSite=Strict, HttpOnly.
import type { Router } from '@koa/router';
import { AppError } from '../../domain/errors.ts';
import { LANGS, LANGUAGES, isLang, tagOf, type Lang } from '../../i18n/languages.ts';
import { fromAcceptLanguage } from '../../i18n/negotiate.ts';
import type { AppState, Ctx, Mw } from '../context.ts';
import { newRouter } from '../router.ts';
import { isSamePath } from './back-path.ts';
import { readForm } from './form.ts';
import { html } from './html.ts';
import { render, wordsOf } from './respond.ts';
import { csrfField } from './views/parts.ts';
import type { WebSessions } from '../../domain/web-sessions.ts';

export const LANG_COOKIE = 'obscura_lang';

function cookieLang(ctx: Ctx): Lang | undefined {
  for (const part of (ctx.get('cookie') || '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === LANG_COOKIE) {
      const v = part.slice(eq + 1).trim();
      return isLang(v) ? v : undefined;
    }
  }
  return undefined;
}

/** Sets ctx.state.lang for the pages. */
export function webLanguage(): Mw {
  return async (ctx, next) => {
    ctx.state.lang = cookieLang(ctx) ?? fromAcceptLanguage(ctx.get('accept-language') || undefined);
    ctx.vary('Accept-Language');
    await next();
  };
}

export function languagePages(d: { webSessions: WebSessions }): Router<AppState> {
  const router = newRouter();

  router.get('/language', (ctx) => {
    const w = wordsOf(ctx);
    const back = typeof ctx.query.back === 'string' && isSamePath(ctx.query.back) ? ctx.query.back : '/';
    const buttons = LANGS.map(
      (l) =>
        html`<li><button type="submit" name="lang" value="${l}" lang="${tagOf(l)}"${LANGUAGES[l].dir === 'rtl' ? html` dir="rtl"` : null}${
          l === w.lang ? html` aria-current="true"` : null
        }>${LANGUAGES[l].name}</button></li>\n`,
    );
    render(
      ctx,
      { title: w.t('lang.title'), back },
      html`<h1>${w.t('lang.title')}</h1>
<p>${w.t('lang.intro')}</p>
<form method="post" action="/language" class="stack languages">
${csrfField(ctx.state.web!.csrf)}
<input type="hidden" name="back" value="${back}">
<ul class="languages">
${buttons}</ul>
</form>
`,
    );
  });

  router.post('/language', async (ctx) => {
    const f = await readForm(ctx, (presented) => d.webSessions.csrfValid(ctx.state.web?.token, presented));
    const lang = f.lang?.[0];
    const back = f.back?.[0] ?? '/';
    if (!isLang(lang)) throw new AppError('invalid_language', `The language must be one of ${LANGS.join(', ')}.`);
    if (!isSamePath(back)) throw new AppError('invalid_back');
    const secure = ctx.state.origin.startsWith('https:') ? '; Secure' : '';
    ctx.append('Set-Cookie', `${LANG_COOKIE}=${lang}; Path=/; HttpOnly; SameSite=Strict${secure}`);
    ctx.state.lang = lang;
    ctx.status = 303;
    ctx.redirect(back);
  });

  return router;
}
