import { html, type Html } from '../html.ts';

const TITLES: Record<number, string> = {
  400: 'The request was not understood',
  403: 'Not allowed',
  404: 'Page not found',
  405: 'Not allowed here',
  409: 'Not possible now',
  410: 'Gone',
  413: 'Too large',
  422: 'Something in the form was not right',
  429: 'Too many requests',
  500: 'Something went wrong',
  503: 'The service is not available',
};

export function errorView(v: { status: number; code: string; message: string }): Html {
  const title = TITLES[v.status] ?? (v.status >= 500 ? 'Something went wrong' : 'This did not work');
  return html`<h1>${title}</h1>
<div class="notice notice-error" role="alert"><p>${v.message} <small class="code">(${v.status} ${v.code})</small></p></div>
${v.code.includes('csrf') ? html`<p>If you opened this page from an old tab, go back, reload the page and try again.</p>` : null}
${v.status === 429 ? html`<p>Wait a little before trying again.</p>` : null}
<p><a href="/">Back to the start</a></p>
`;
}
