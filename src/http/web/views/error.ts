import { html, type Html } from '../html.ts';
import { ENGLISH, type Words } from '../words.ts';

const TITLES = {
  400: 'errorPage.400',
  403: 'errorPage.403',
  404: 'errorPage.404',
  405: 'errorPage.405',
  409: 'errorPage.409',
  410: 'errorPage.410',
  413: 'errorPage.413',
  422: 'errorPage.422',
  429: 'errorPage.429',
  500: 'errorPage.500',
  503: 'errorPage.503',
} as const;

export function errorView(v: { status: number; code: string; message: string; words?: Words }): Html {
  const { t } = v.words ?? ENGLISH;
  const key = TITLES[v.status as keyof typeof TITLES] ?? (v.status >= 500 ? 'errorPage.500' : 'errorPage.other');
  return html`<h1>${t(key)}</h1>
<div class="notice notice-error" role="alert"><p>${v.message} <small class="code">(${v.status} ${v.code})</small></p></div>
${v.code.includes('csrf') ? html`<p>${t('errorPage.csrf')}</p>` : null}
${v.status === 429 ? html`<p>${t('errorPage.wait')}</p>` : null}
<p><a href="/">${t('errorPage.back')}</a></p>
`;
}
