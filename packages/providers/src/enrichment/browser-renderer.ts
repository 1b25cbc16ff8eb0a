/**
 * The browser tier (decision 040): a page that is an application shell (an empty root and a bundle) is
 * rendered in headless Chromium (Debian's /usr/bin/chromium through playwright-core) and read as the
 * DOM it builds. Off unless configured. Chromium never touches the network itself: every request it
 * makes is answered through the crawler's own safeFetch (the same network guard, robots.txt, byte cap
 * and per-host slot), only for the page's own site; other origins, downloads, service workers and web
 * sockets are refused. A small pool of pages at once, a time budget per page, a heap cap per renderer.
 */
import type { Browser, BrowserContext } from 'playwright-core';
import { abortableLimit, type AbortableLimit } from './concurrency-limits';
import type { PageDocument } from './html';

export interface BrowserOptions {
  /** the Chromium binary; default Debian's /usr/bin/chromium */
  executablePath?: string;
  /** pages rendered at once by this process */
  pool: number;
  /** per page: navigation, scripts and the settle wait together */
  pageTimeoutMs: number;
  /** V8 heap cap of each renderer, MiB */
  heapMb: number;
}

/** Fetches one subresource for the page through the crawler's guarded fetch; null refuses it. */
export type GuardedFetch = (url: URL, signal: AbortSignal) => Promise<{ status: number; mediaType: string; body: string } | null>;

export interface BrowserRenderer {
  /** The page's DOM after its scripts ran, as HTML; null when it could not be rendered within budget. */
  render(url: URL, html: string, fetch: GuardedFetch, signal: AbortSignal): Promise<string | null>;
  close(): Promise<void>;
}

// The flags the issue's deployment asks for: no GPU, no background traffic of Chromium's own.
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
// resource types a contact block never needs
const SKIPPED_TYPES = new Set(['image', 'media', 'font', 'websocket', 'manifest', 'other']);

export function createBrowserRenderer(options: BrowserOptions): BrowserRenderer {
  const pool: AbortableLimit = abortableLimit(Math.max(1, options.pool));
  let browser: Promise<Browser> | null = null;
  const launch = async (): Promise<Browser> => {
    const { chromium } = await import('playwright-core');
    // a failed launch is forgotten, so the next page tries again
    return chromium.launch({
      executablePath: options.executablePath ?? '/usr/bin/chromium',
      headless: true,
      // The process's own shutdown closes Chromium (the worker's, through closeProviders and enricher.close()), after
      // the jobs held had their grace: Playwright's signal handlers would close it at SIGTERM under a page still being
      // rendered, and exit the process at SIGINT before the worker handed its jobs back. Its exit handler stays: a
      // process that dies without its shutdown still takes Chromium with it.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      args: [...FLAGS, `--js-flags=--max-old-space-size=${Math.max(16, options.heapMb)}`],
    });
  };
  return {
    async render(url, html, fetch, signal) {
      return pool(signal, async () => {
        browser ??= launch().catch((error: unknown) => {
          browser = null;
          throw error;
        });
        let context: BrowserContext | null = null;
        try {
          // Chromium starts once per process; the page's budget starts once it runs
          const running = await browser;
          const timer = AbortSignal.any([signal, AbortSignal.timeout(options.pageTimeoutMs)]);
          const deadline = Date.now() + options.pageTimeoutMs;
          context = await running.newContext({ acceptDownloads: false, serviceWorkers: 'block', javaScriptEnabled: true });
          await context.routeWebSocket(/.*/, (socket) => socket.close());
          await context.route('**/*', async (route) => {
            const request = route.request();
            let target: URL;
            try {
              target = new URL(request.url());
            } catch {
              return route.abort();
            }
            if (target.href === url.href && request.resourceType() === 'document')
              return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html });
            // only the page's own site, and only what can carry text: scripts, data, styles, documents
            if (target.origin !== url.origin || SKIPPED_TYPES.has(request.resourceType()) || request.method() !== 'GET')
              return route.abort();
            const answer = await fetch(target, timer).catch(() => null);
            if (answer === null) return route.abort();
            return route.fulfill({ status: answer.status, contentType: answer.mediaType, body: answer.body });
          });
          const page = await context.newPage();
          const remaining = () => Math.max(1, deadline - Date.now());
          await page.goto(url.href, { waitUntil: 'load', timeout: remaining() });
          // an application shell fills its root after its bundle ran and its data came: until the network is idle, at most 1.5 s
          await page.waitForLoadState('networkidle', { timeout: Math.min(1_500, remaining()) }).catch(() => undefined);
          if (timer.aborted) return null;
          return await page.content();
        } catch {
          return null;
        } finally {
          await context?.close().catch(() => undefined);
        }
      }).catch(() => null);
    },
    async close() {
      const running = browser;
      browser = null;
      if (running) await (await running.catch(() => null))?.close();
    },
  };
}

// An application shell: almost no text, an empty root element a framework mounts into (a <noscript>
// notice at most), and a script to mount it. A server-rendered page (its root already filled) is not one.
const EMPTY_ROOT =
  /<(div|main|section)\b[^>]*\bid=["']?(?:root|app|__nuxt|__next|svelte|main-app|application)\b["']?[^>]*>\s*(?:<noscript\b[\s\S]*?<\/noscript>\s*)?<\/\1>/i;

export function isApplicationShell(page: PageDocument, html: string): boolean {
  const text = page.blocks.reduce((n, b) => n + b.text.length, 0);
  return text < 200 && EMPTY_ROOT.test(html) && /<script\b[^>]*\bsrc=/i.test(html);
}
