import { createWebsiteEnricher, type EnrichmentOptions } from '../src/enrichment';
import { isApplicationShell } from '../src/enrichment/browser-renderer';
import { parsePage } from '../src/enrichment/html';
import { html, loopbackLookup, notFound, startFakeSite, type FakeSite } from '@leadgen/testing';

// The browser tier (decision 040) against an application shell served from loopback: Debian's Chromium
// through playwright-core, every request answered through the crawler's own guarded fetch.
const SHELL = `<!doctype html><html><head><title>Nova Physio</title><script type="module" src="/assets/index-4f2a.js"></script>
<script src="http://tracker.example:PORT/t.js"></script></head><body><div id="root"></div></body></html>`;
const BUNDLE = `const root = document.getElementById('root');
fetch('/api/site.json').then((r) => r.json()).then((site) => {
  root.innerHTML = '<h1>' + site.name + '</h1><p>Email: <a href="mailto:' + site.email + '">' + site.email + '</a></p>'
    + '<a href="https://www.instagram.com/' + site.instagram + '/">Instagram</a>';
});`;

describe('the browser tier', () => {
  let site: FakeSite;
  let tracker: FakeSite;
  beforeAll(async () => {
    tracker = await startFakeSite((_request, response) => html(response, 'window.tracked = true;'));
    site = await startFakeSite((request, response) => {
      if (request.url === '/') return html(response, SHELL.replace('PORT', String(tracker.port)));
      if (request.url === '/assets/index-4f2a.js') {
        response.writeHead(200, { 'Content-Type': 'text/javascript' });
        return response.end(BUNDLE);
      }
      if (request.url === '/api/site.json') {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        return response.end(JSON.stringify({ name: 'Nova Physio', email: 'praxis@nova-physio.example', instagram: 'novaphysio' }));
      }
      return notFound(response);
    });
  });
  afterAll(async () => {
    await Promise.all([site.close(), tracker.close()]);
  });

  const options = (browser: boolean): EnrichmentOptions => ({
    allowPrivateNetworks: true,
    timeoutMs: 60_000,
    maxBytes: 1024 * 1024,
    concurrency: 2,
    lookup: loopbackLookup(),
    maxPages: 1,
    browser: { enabled: browser, pool: 1, pageTimeoutMs: 20_000, heapMb: 128 },
  });

  it('when the tier is off (the default), then an application shell gives nothing and no browser starts', async () => {
    const enricher = createWebsiteEnricher(options(false));
    const result = await enricher.enrich(`http://nova-physio.example:${site.port}/`, new AbortController().signal);
    expect(result.emails).toEqual([]);
    expect(site.paths()).not.toContain('/assets/index-4f2a.js');
    await enricher.close();
  });

  it('when the tier is on, then the shell is rendered: its bundle and data come through the guarded fetch, another origin gets no request', async () => {
    const enricher = createWebsiteEnricher(options(true));
    try {
      const result = await enricher.enrich(`http://nova-physio.example:${site.port}/`, new AbortController().signal);
      expect(result.emails).toEqual(['praxis@nova-physio.example']);
      expect(result.socialProfiles.instagram).toBe('https://www.instagram.com/novaphysio');
      expect(result.provenance.sources.emails['praxis@nova-physio.example']).toEqual({
        sourceUrl: `http://nova-physio.example:${site.port}/`,
        basis: 'site domain',
      });
      // the bundle and its data were fetched by the crawler (robots.txt asked first), the tracker never
      expect(site.paths()).toEqual(expect.arrayContaining(['/assets/index-4f2a.js', '/api/site.json']));
      expect(tracker.connections).toBe(0);
    } finally {
      await enricher.close();
    }
  }, 90_000);
});

describe('isApplicationShell', () => {
  it('when the root is empty and a bundle mounts it, then it is a shell; a server-rendered page with the same root is not', () => {
    const shell = '<div id="root"></div><script type="module" src="/assets/index.js"></script>';
    const rendered = '<div id="__next"><h1>Nova</h1><p>Email: a@nova.example</p></div><script src="/_next/main.js"></script>';
    expect(isApplicationShell(parsePage(shell), shell)).toBe(true);
    expect(isApplicationShell(parsePage(rendered), rendered)).toBe(false);
  });
});
