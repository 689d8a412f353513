// The accessibility audit of pages that carry no script: the pages are fetched as a person's
// browser would (cookie and all), then each document is handed, as it was received, to a second
// chromium context where JavaScript is on ONLY so that axe-core and the overflow check can run.
// The stylesheet and pictures come from the real service.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM } from './browser.ts';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
export const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'];

export interface Violation {
  id: string;
  impact: string | null;
  targets: string[];
}

export interface Auditor {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Shows `body` as the document at `url` (a GET there answers it), in this viewport. */
  show(url: string, body: string, viewport?: { width: number; height: number }): Promise<void>;
  /** axe over the shown page: the violations of WCAG 2.0/2.1/2.2 A and AA. */
  axe(): Promise<Violation[]>;
  /** Elements whose own text is wider than their box (scrollWidth > clientWidth + 1). */
  overflowing(): Promise<string[]>;
  close(): Promise<void>;
}

export async function startAuditor(cookies: { name: string; value: string; url: string }[] = []): Promise<Auditor> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  // bypassCSP: the pages' CSP forbids every script, axe's included
  const context = await browser.newContext({ javaScriptEnabled: true, bypassCSP: true });
  if (cookies.length) await context.addCookies(cookies);
  const page = await context.newPage();
  const shown = new Map<string, string>();
  await page.route('**/*', async (route) => {
    const req = route.request();
    const body = req.resourceType() === 'document' ? shown.get(req.url()) : undefined;
    // a meta refresh must not reload the page under the audit: it is answered with the same copy
    if (body !== undefined) return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body });
    return route.continue();
  });
  return {
    browser,
    context,
    page,
    async show(url, body, viewport = { width: 1000, height: 1000 }) {
      shown.clear();
      shown.set(url, body);
      await page.setViewportSize(viewport);
      await page.goto(url, { waitUntil: 'load' });
    },
    async axe() {
      await page.evaluate(AXE);
      return page.evaluate(async (tags) => {
        const r = await (globalThis as any).axe.run((globalThis as any).document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
        return r.violations.map((v: any) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n: any) => `${n.target.join(' ')}${n.failureSummary ? ` [${String(n.failureSummary).replace(/\s+/g, ' ').slice(0, 160)}]` : ''}`) }));
      }, WCAG_AA);
    },
    async overflowing() {
      return page.evaluate(() => {
        const out: string[] = [];
        const doc = (globalThis as any).document;
        for (const el of doc.querySelectorAll('body *')) {
          const ownText = [...el.childNodes].some((n: any) => n.nodeType === 3 && n.textContent.trim() !== '');
          if (!ownText || el.clientWidth === 0) continue;
          const style = (globalThis as any).getComputedStyle(el);
          if (style.overflowX === 'auto' || style.overflowX === 'scroll') continue; // it scrolls: nothing is cut
          if (style.clip !== 'auto' || style.clipPath !== 'none') continue; // for screen readers only: clipped on purpose
          if (el.scrollWidth > el.clientWidth + 1) out.push(`<${el.tagName.toLowerCase()}${el.className ? ` class="${el.className}"` : ''}> ${el.scrollWidth}>${el.clientWidth}: ${el.textContent.trim().slice(0, 40)}`);
        }
        // nothing may be wider than the screen either
        const root = doc.documentElement;
        if (root.scrollWidth > root.clientWidth + 1) out.push(`<html> ${root.scrollWidth}>${root.clientWidth}`);
        return out;
      });
    },
    close: () => browser.close(),
  };
}
