// A real browser with JavaScript off, as Tor Browser at its Safest level: Debian's chromium,
// driven by playwright-core. Every document it loads is kept (status, headers, body) so the
// tests can hold each page to the rules, and each page can be written out as a screenshot.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
/** Tor Browser's default content size (letterboxed) and a small phone. */
export const TOR_BROWSER_VIEWPORT = { width: 1000, height: 1000 };
export const PHONE_VIEWPORT = { width: 360, height: 740 };

export interface Document {
  url: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface NoScriptBrowser {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  documents: Document[];
  /** Writes the page as it is now to DIR/NN-name.png; returns the path. */
  shot(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function startBrowser(opts: { hostRules?: string; shotsDir: string; viewport?: { width: number; height: number } }): Promise<NoScriptBrowser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', ...(opts.hostRules ? [`--host-resolver-rules=${opts.hostRules}`] : [])],
  });
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: opts.viewport ?? TOR_BROWSER_VIEWPORT, acceptDownloads: true });
  const page = await context.newPage();
  const documents: Document[] = [];
  page.on('response', async (res) => {
    if (res.request().resourceType() !== 'document') return;
    let body = '';
    try {
      body = await res.text();
    } catch {
      /* a redirect has no body */
    }
    documents.push({ url: res.url(), status: res.status(), headers: res.headers(), body });
  });
  mkdirSync(opts.shotsDir, { recursive: true });
  let n = 0;
  return {
    browser,
    context,
    page,
    documents,
    async shot(name) {
      const file = path.join(opts.shotsDir, `${String(++n).padStart(2, '0')}-${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
    close: () => browser.close(),
  };
}
