// `npm run bench -- --only browser`: the browser tier's cost (decision 040). Application-shell sites
// (an empty root, a bundle that fetches its contact data) served from loopback are enriched with the
// tier on, one after another on a warm Chromium: time per rendered page and the memory Chromium holds.
// Then the world corpus (no shells) without the tier and with it, to show the tier costs nothing on
// pages that need no browser.
import { readdirSync, readFileSync } from 'node:fs';
import { createWebsiteEnricher, type EnrichmentOptions } from '@leadgen/providers/src/enrichment';
import { evaluateCorpus, html, loopbackLookup, notFound, startFakeSite, WORLD_SITES } from '@leadgen/testing';
import { fmt, median } from './report';

const shell = (n: number) =>
  `<!doctype html><html><head><title>Shop ${n}</title><script type="module" src="/assets/index.js"></script></head><body><div id="app"></div></body></html>`;
const BUNDLE = `fetch('/api/contact.json').then((r) => r.json()).then((c) => {
  document.getElementById('app').innerHTML = '<h1>' + c.name + '</h1><p><a href="mailto:' + c.email + '">' + c.email + '</a></p>';
});`;

export interface BrowserCost {
  pages: number;
  found: number;
  msPerPage: number[];
  chromiumRssBytes: number;
  staticMsPerSite: { off: number; on: number };
}

export async function measureBrowserTier(pages: number): Promise<BrowserCost> {
  const site = await startFakeSite((request, response) => {
    const host = (request.headers.host ?? '').replace(/:\d+$/, '');
    const n = Number(/^shop-(\d+)\.example$/.exec(host)?.[1] ?? -1);
    if (n < 0) return notFound(response);
    if (request.url === '/') return html(response, shell(n));
    if (request.url === '/assets/index.js') {
      response.writeHead(200, { 'Content-Type': 'text/javascript' });
      return response.end(BUNDLE);
    }
    if (request.url === '/api/contact.json') {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      return response.end(JSON.stringify({ name: `Shop ${n}`, email: `hello@shop-${n}.example` }));
    }
    return notFound(response);
  });
  const base: EnrichmentOptions = {
    allowPrivateNetworks: true,
    timeoutMs: 30_000,
    maxBytes: 1024 * 1024,
    concurrency: 4,
    lookup: loopbackLookup(),
    maxPages: 1,
  };
  const browser = { enabled: true, pool: 2, pageTimeoutMs: 15_000, heapMb: 128 };
  const enricher = createWebsiteEnricher({ ...base, browser });
  const never = new AbortController().signal;
  try {
    // the first page pays Chromium's start; it is not a page's cost
    await enricher.enrich(`http://shop-0.example:${site.port}/`, never);
    const msPerPage: number[] = [];
    let found = 0;
    for (let n = 1; n <= pages; n++) {
      const started = performance.now();
      const result = await enricher.enrich(`http://shop-${n}.example:${site.port}/`, never);
      msPerPage.push(performance.now() - started);
      if (result.emails[0] === `hello@shop-${n}.example`) found++;
    }
    const chromiumRssBytes = descendants(process.pid)
      .filter((pid) => /chrom/i.test(cmdline(pid)))
      .reduce((sum, pid) => sum + (rss(pid) ?? 0), 0);
    const off = (await evaluateCorpus(WORLD_SITES)).msPerSite;
    const on = (await evaluateCorpus(WORLD_SITES, { browser })).msPerSite;
    return { pages, found, msPerPage, chromiumRssBytes, staticMsPerSite: { off, on } };
  } finally {
    await enricher.close();
    await site.close();
  }
}

export function browserReport(cost: BrowserCost): string[] {
  const sorted = [...cost.msPerPage].sort((a, b) => a - b);
  return [
    `browser tier (decision 040): ${cost.pages} application-shell pages on a warm Chromium, pool 2:`,
    `  ${fmt.ms(median(sorted))} a page (median), p90 ${fmt.ms(sorted[Math.floor(sorted.length * 0.9)] ?? 0)}, contact found on ${cost.found}/${cost.pages}`,
    `  Chromium resident memory after them: ${fmt.mb(cost.chromiumRssBytes)}`,
    `  world corpus (no shells): ${cost.staticMsPerSite.off} ms a site without the tier, ${cost.staticMsPerSite.on} ms with it`,
  ];
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}
const cmdline = (pid: number) => (readText(`/proc/${pid}/cmdline`) ?? '').replace(/\0/g, ' ');
const rss = (pid: number) => {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readText(`/proc/${pid}/status`) ?? '')?.[1];
  return kb ? Number(kb) * 1024 : null;
};
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readText(`/proc/${name}/stat`);
    if (stat) parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  }
  const found: number[] = [];
  for (const pid of parent.keys()) {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) {
      if (p === root) {
        found.push(pid);
        break;
      }
    }
  }
  return found;
}
