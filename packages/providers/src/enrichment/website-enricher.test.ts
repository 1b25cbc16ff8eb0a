import * as zlib from 'zlib';
import { isForbiddenAddress } from '@leadgen/network-guard';
import { createEnricherWithPolicy, createWebsiteEnricher, DEFAULT_USER_AGENT, type EnrichmentOptions } from './website-enricher';
import { html, loopbackLookup, notFound, redirect, startFakeSite, streamHuge, type FakeSite } from '@leadgen/testing';

const EMPTY = {
  websiteStatus: 'unreachable',
  emails: [],
  socialProfiles: { facebook: null, instagram: null, linkedin: null },
  provenance: expect.objectContaining({ emailSource: null, emailBasis: null }) as unknown,
};
const MiB = 1024 * 1024;

function options(overrides: Partial<EnrichmentOptions> = {}): EnrichmentOptions {
  return { allowPrivateNetworks: true, timeoutMs: 8000, maxBytes: MiB, concurrency: 4, lookup: loopbackLookup(), ...overrides };
}

const never = new AbortController().signal;

const BAKERY_HOME = `<html><body>
  <a href="mailto:info@bakery.example?subject=Order">Mail us</a>
  <img src="/img/logo@2x.png" alt="">
  <a href="https://www.facebook.com/sharer/sharer.php?u=https://bakery.example">Share</a>
  <a href="/blog">Blog</a> <a href="/about-us">About us</a> <a href="/contact#form">Contact</a>
</body></html>`;
const BAKERY_CONTACT = `<html><body>
  <p>Anna: anna [at] bakery [dot] example</p>
  <p>Errors go to 605a7baede844d278b89dc95ae0a9123@sentry-next.wixpress.com, not you@example.com</p>
  <a href="https://facebook.com/AcmeBakery/">Facebook</a>
  <a href="https://www.instagram.com/acme.bakery/?hl=en">Instagram</a>
  <a href="https://www.linkedin.com/company/acme-bakery/">LinkedIn</a>
</body></html>`;

describe('createWebsiteEnricher', () => {
  const sites: FakeSite[] = [];
  const start = async (...args: Parameters<typeof startFakeSite>): Promise<FakeSite> => {
    const site = await startFakeSite(...args);
    sites.push(site);
    return site;
  };
  afterAll(async () => {
    await Promise.all(sites.map((site) => site.close()));
  });

  describe('with a well-behaved site', () => {
    let site: FakeSite;
    beforeAll(async () => {
      site = await start((request, response) => {
        if (request.url === '/') return html(response, BAKERY_HOME);
        if (request.url === '/contact') return html(response, BAKERY_CONTACT);
        if (request.url === '/about-us') return html(response, '<p>Jobs: jobs@bakery.example, or our agency hello@agency.example</p>');
        if (request.url === '/blog') return html(response, '<p>blog@bakery.example</p>');
        return notFound(response);
      });
    });

    it('when the home page links to contact and about pages, then they are read together, merged best first, junk and the agency left out, each with its page and reason, and the visit stops once the site gave everything', async () => {
      const result = await createWebsiteEnricher(options({ maxPages: 3 })).enrich(`http://bakery.example:${site.port}/`, never);
      const at = (path: string) => `http://bakery.example:${site.port}${path}`;
      const linked = { sourceUrl: at('/contact'), basis: 'linked from the site' };
      expect(result).toEqual({
        websiteStatus: 'ok',
        // the contact page completed the lead (an address and the three profiles): the about page was called off
        emails: ['info@bakery.example', 'anna@bakery.example'],
        socialProfiles: {
          facebook: 'https://www.facebook.com/AcmeBakery',
          instagram: 'https://www.instagram.com/acme.bakery',
          linkedin: 'https://www.linkedin.com/company/acme-bakery',
        },
        provenance: {
          emailSource: 'home page',
          emailBasis: 'site domain',
          profileSources: { facebook: 'contact page', instagram: 'contact page', linkedin: 'contact page' },
          pagesVisited: 2,
          sources: {
            emails: {
              'info@bakery.example': { sourceUrl: at('/'), basis: 'site domain' },
              'anna@bakery.example': { sourceUrl: at('/contact'), basis: 'site domain' },
            },
            facebook: linked,
            instagram: linked,
            linkedin: linked,
          },
        },
      });
      // robots.txt first, then the home page, then the two best candidates together (the about page may or may not
      // have reached the server before it was called off); never the blog
      expect(site.paths().slice(0, 3)).toEqual(['/robots.txt', '/', '/contact']);
      expect(site.paths()).not.toContain('/blog');
      for (const seen of site.requests) {
        expect(seen.headers['user-agent']).toBe(DEFAULT_USER_AGENT);
        expect(seen.headers.accept).toContain(seen.path === '/robots.txt' ? 'text/plain' : 'text/html');
      }
    });

    it('when maxPages is 1, then only the home page is read', async () => {
      // the previous visit's called-off page may still reach the server
      await new Promise((resolve) => setTimeout(resolve, 200));
      const before = site.requests.length;
      const result = await createWebsiteEnricher(options({ maxPages: 1 })).enrich(`bakery.example:${site.port}`, never);
      expect(result.emails).toEqual(['info@bakery.example']);
      expect(site.paths().slice(before)).toEqual(['/robots.txt', '/']);
    });
  });

  describe('the early stop (decision 037) and attribution (decision 040)', () => {
    const PROFILES =
      '<a href="https://www.facebook.com/StudioLuna">Facebook</a><a href="https://www.instagram.com/studio.luna">Instagram</a>' +
      '<a href="https://www.linkedin.com/company/studio-luna">LinkedIn</a>';

    it('when the home page gives the three profiles and only an address of another domain, then the visit goes on, and a credit line on a later page takes it back', async () => {
      const site = await start((request, response) => {
        if (request.url === '/robots.txt') return notFound(response);
        if (request.url === '/')
          return html(
            response,
            `<script type="application/ld+json">{"@type":"LocalBusiness","name":"Studio Luna","email":"hallo@pixelwerk.example"}</script>` +
              `<nav><a href="/impressum">Impressum</a></nav>${PROFILES}`,
          );
        if (request.url === '/impressum')
          return html(response, '<footer><p>Webdesign von <a href="mailto:hallo@pixelwerk.example">Pixelwerk</a></p></footer>');
        return notFound(response);
      });
      const result = await createWebsiteEnricher(options()).enrich(`http://studioluna.example:${site.port}/`, never, {
        businessName: 'Studio Luna',
      });
      expect(site.paths()).toContain('/impressum');
      expect(result.emails).toEqual([]);
      expect(result.socialProfiles.linkedin).toBe('https://www.linkedin.com/company/studio-luna');
    });

    it('when the home page gives a site-domain address and the three profiles, then the visit stops there, but a same-site frame of it is read first', async () => {
      const site = await start((request, response) => {
        if (request.url === '/robots.txt') return notFound(response);
        if (request.url === '/')
          return html(
            response,
            `<p>info@studioluna.example</p><iframe src="/widget/kontakt.html"></iframe><nav><a href="/kontakt">Kontakt</a></nav>${PROFILES}`,
          );
        if (request.url === '/widget/kontakt.html') return html(response, '<p>termine@studioluna.example</p>');
        if (request.url === '/kontakt') return html(response, '<p>kontakt@studioluna.example</p>');
        return notFound(response);
      });
      const result = await createWebsiteEnricher(options()).enrich(`http://studioluna.example:${site.port}/`, never);
      expect(result.emails).toEqual(['info@studioluna.example', 'termine@studioluna.example']);
      expect(result.provenance.sources.emails['termine@studioluna.example']?.sourceUrl).toBe(
        `http://studioluna.example:${site.port}/widget/kontakt.html`,
      );
      expect(result.provenance.pagesVisited).toBe(2);
    });
  });

  describe('a site as a person reads it', () => {
    const FOOTER = '<footer><p>Webdesign von <a href="mailto:hallo@pixelwerk.example">Pixelwerk</a> · hallo@pixelwerk.example</p></footer>';
    it.each([
      ['German', 'Kontakt', 'Schreiben Sie uns'],
      ['French', 'Nous contacter', 'Écrivez-nous'],
      ['Spanish', 'Contacto', 'Escríbanos'],
      ['Italian', 'Contatti', 'Scriveteci'],
    ])(
      'when a %s site links its contact page only by text, then it is opened and the business free-mail outranks the designer',
      async (_language, linkText, prompt) => {
        const site = await start((request, response) => {
          if (request.url === '/robots.txt') return notFound(response);
          if (request.url === '/') return html(response, `<nav><a href="/seite-7">${linkText}</a><a href="/p/2">Shop</a></nav>${FOOTER}`);
          if (request.url === '/seite-7')
            return html(response, `<div class="kontakt"><p>Caf&eacute; Rosa – ${prompt}: cafe.<b>rosa</b>@gmail.com</p></div>${FOOTER}`);
          return notFound(response);
        });
        const result = await createWebsiteEnricher(options()).enrich(`http://cafe-rosa.example:${site.port}/`, never, {
          businessName: 'Café Rosa',
        });
        expect(result.emails).toEqual(['cafe.rosa@gmail.com']);
        expect(result.provenance).toEqual(
          expect.objectContaining({ emailSource: 'contact page', emailBasis: 'contact block', pagesVisited: 2 }),
        );
        expect(site.paths()).toEqual(['/robots.txt', '/', '/seite-7']);
      },
    );
  });

  describe('robots.txt', () => {
    it('when robots.txt disallows /contact, then /contact is never requested and other pages still are', async () => {
      const site = await start((request, response) => {
        if (request.url === '/robots.txt') return html(response, 'User-agent: *\nDisallow: /contact\n');
        if (request.url === '/') return html(response, '<a href="/contact">Contact</a><a href="/impressum">Impressum</a>');
        if (request.url === '/impressum') return html(response, 'Inhaber: office@baeckerei.example');
        return html(response, 'secret@baeckerei.example');
      });
      const enricher = createWebsiteEnricher(options());
      const result = await enricher.enrich(`http://baeckerei.example:${site.port}/`, never);
      expect(result.emails).toEqual(['office@baeckerei.example']);
      expect(site.paths()).toEqual(['/robots.txt', '/', '/impressum']);
      // cached per enricher: a second visit of the same origin does not fetch it again
      await enricher.enrich(`http://baeckerei.example:${site.port}/`, never);
      expect(site.paths().filter((path) => path === '/robots.txt')).toHaveLength(1);
    });

    it.each([
      ['disallows our agent', (response: Parameters<typeof html>[0]) => html(response, 'User-agent: LeadgenBot\nDisallow: /\n')],
      ['answers 503', (response: Parameters<typeof html>[0]) => html(response, 'down', 503)],
    ])('when robots.txt %s, then no page is fetched', async (_case, robots) => {
      const site = await start((request, response) =>
        request.url === '/robots.txt' ? robots(response) : html(response, 'info@shop.example'),
      );
      expect(await createWebsiteEnricher(options()).enrich(`http://shop.example:${site.port}/`, never)).toEqual(EMPTY);
      expect(site.paths()).toEqual(['/robots.txt']);
    });
  });

  describe('redirects', () => {
    let site: FakeSite;
    beforeAll(async () => {
      site = await start((request, response) => {
        const host = request.headers.host ?? '';
        if (request.url === '/robots.txt') return notFound(response);
        if (request.url === '/') return redirect(response, '/step-1', 301);
        if (request.url === '/step-1') return redirect(response, '/step-2', 302);
        if (request.url === '/step-2') return redirect(response, `http://www.chain.example:${site.port}/home`, 307);
        if (request.url === '/home' && host.startsWith('www.')) return html(response, '<a href="mailto:hi@chain.example">hi</a>');
        if (request.url === '/loop') return redirect(response, '/loop', 308);
        return notFound(response);
      });
    });

    it('when the home page redirects through a chain to another host, then the final page is read', async () => {
      const result = await createWebsiteEnricher(options()).enrich(`http://chain.example:${site.port}/`, never);
      expect(result.emails).toEqual(['hi@chain.example']);
    });

    it('when the chain is longer than maxRedirects, then the lead simply gets no enrichment', async () => {
      expect(await createWebsiteEnricher(options({ maxRedirects: 2 })).enrich(`http://chain.example:${site.port}/`, never)).toEqual(EMPTY);
    });

    it('when redirects loop, then the visit ends after maxRedirects hops', async () => {
      const before = site.paths().filter((path) => path === '/loop').length;
      expect(await createWebsiteEnricher(options()).enrich(`http://chain.example:${site.port}/loop`, never)).toEqual(EMPTY);
      expect(site.paths().filter((path) => path === '/loop').length - before).toBe(6);
    });
  });

  describe('limits', () => {
    it('when the home page is 20 MB, then only maxBytes are read and the visit returns promptly', async () => {
      const stats = { written: 0, finished: false };
      const site = await start((request, response) =>
        request.url === '/'
          ? streamHuge(response, '<a href="mailto:top@huge.example">m</a>', 20 * MiB, 'tail@huge.example', stats)
          : notFound(response),
      );
      const started = Date.now();
      const result = await createWebsiteEnricher(options({ maxBytes: 64 * 1024 })).enrich(`http://huge.example:${site.port}/`, never);
      expect(Date.now() - started).toBeLessThan(10000);
      expect(result.emails).toEqual(['top@huge.example']);
      expect(stats.finished).toBe(false);
      expect(stats.written).toBeLessThan(20 * MiB);
    });

    it('when a server never finishes its response, then the visit ends at timeoutMs with what had arrived', async () => {
      const site = await start((request, response) => {
        if (request.url === '/robots.txt') return notFound(response);
        response.writeHead(200, { 'Content-Type': 'text/html' });
        response.write('<a href="mailto:slow@slow.example">m</a><a href="/contact">Contact</a>');
      });
      const started = Date.now();
      // generous: the partial page has to arrive before the deadline even on a loaded machine
      const result = await createWebsiteEnricher(options({ timeoutMs: 1500 })).enrich(`http://slow.example:${site.port}/`, never);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
      expect(Date.now() - started).toBeLessThan(10000);
      expect(result.emails).toEqual(['slow@slow.example']);
      expect(site.paths()).toEqual(['/robots.txt', '/']);
    });

    it('when a server never answers at all, then the visit ends at timeoutMs with an empty result', async () => {
      const site = await start(() => undefined);
      const started = Date.now();
      expect(await createWebsiteEnricher(options({ timeoutMs: 300 })).enrich(`http://mute.example:${site.port}/`, never)).toEqual(EMPTY);
      expect(Date.now() - started).toBeLessThan(10000);
    });

    it('when the page is sent gzip-compressed, then it is decompressed', async () => {
      const site = await start((request, response) => {
        if (request.url !== '/') return notFound(response);
        response.writeHead(200, { 'Content-Type': 'text/html', 'Content-Encoding': 'gzip' });
        response.end(zlib.gzipSync('<p>Write to zip&#64;gzip.example</p>'));
      });
      const result = await createWebsiteEnricher(options()).enrich(`http://gzip.example:${site.port}/`, never);
      expect(result.emails).toEqual(['zip@gzip.example']);
      expect(site.requests[1]?.headers['accept-encoding']).toContain('gzip');
    });

    it('when two visits of one host run at once with perHost 1, then the host never sees two requests at a time', async () => {
      const site = await start((request, response) => {
        // a slow answer opens the window in which an unguarded second request would overlap
        setTimeout(
          () => (request.url === '/robots.txt' ? notFound(response) : html(response, '<a href="/contact">Contact</a> x@busy.example')),
          30,
        );
      });
      const enricher = createWebsiteEnricher(options({ concurrency: 2, perHost: 1 }));
      const results = await Promise.all([
        enricher.enrich(`http://busy.example:${site.port}/`, never),
        enricher.enrich(`http://busy.example:${site.port}/branch`, never),
      ]);
      expect(results.map((result) => result.emails)).toEqual([['x@busy.example'], ['x@busy.example']]);
      expect(site.requests.length).toBeGreaterThanOrEqual(4);
      expect(site.maxInFlight).toBe(1);
    });

    it('when a site links several pages, then they are read together, at most perHost (default 2) at a time, over kept-alive connections', async () => {
      const site = await start((request, response) => {
        if (request.url === '/robots.txt') return notFound(response);
        const page =
          request.url === '/'
            ? '<a href="/contact">Contact</a> <a href="/impressum">Impressum</a> <a href="/privacy">Privacy policy</a>'
            : 'x@pages.example';
        setTimeout(() => html(response, page), 150);
      });
      const started = Date.now();
      const result = await createWebsiteEnricher(options({ concurrency: 2 })).enrich(`http://pages.example:${site.port}/`, never);
      expect(result.emails).toEqual(['x@pages.example']);
      expect(site.paths().slice(0, 2)).toEqual(['/robots.txt', '/']);
      expect(site.paths().slice(2).sort()).toEqual(['/contact', '/impressum', '/privacy']);
      expect(site.maxInFlight).toBe(2);
      // robots.txt, the home page, then three pages two at a time: four rounds of 150 ms, not five
      expect(Date.now() - started).toBeLessThan(5 * 150 + 400);
      // connections reused from page to page: five requests over two, one per slot of the host (the robots.txt 404's
      // short body is read off and dropped, so its connection serves the home page)
      expect(site.connections).toBeLessThanOrEqual(2);
    });

    it('when the site gave an address of its own, then its about and team pages are not read, its contact and legal pages are', async () => {
      const site = await start((request, response) => {
        if (request.url === '/')
          return html(
            response,
            '<a href="/about">About us</a> <a href="/team">Team</a> <a href="/contact">Contact</a> <a href="/privacy">Privacy</a>',
          );
        if (request.url === '/contact') return html(response, 'Write to info@settled.example');
        if (request.url === '/privacy') return html(response, 'Controller: bookings@settled.example');
        return request.url === '/robots.txt' ? notFound(response) : html(response, 'about us: press@settled.example');
      });
      const result = await createWebsiteEnricher(options({ concurrency: 2 })).enrich(`http://settled.example:${site.port}/`, never);
      expect(result.emails).toEqual(['info@settled.example', 'bookings@settled.example']);
      expect(site.paths().sort()).toEqual(['/', '/contact', '/privacy', '/robots.txt']);
    });

    it('when the contact and legal pages give no address of the site own, then the about page is read for one', async () => {
      const site = await start((request, response) => {
        if (request.url === '/')
          return html(response, '<a href="/about">About us</a> <a href="/contact">Contact</a> <a href="/privacy">Privacy</a>');
        if (request.url === '/about') return html(response, 'Write to us: hello@unsettled.example');
        return request.url === '/robots.txt' ? notFound(response) : html(response, '<form action="/contact"><input type="email"></form>');
      });
      const result = await createWebsiteEnricher(options({ concurrency: 2 })).enrich(`http://unsettled.example:${site.port}/`, never);
      expect(result.emails).toEqual(['hello@unsettled.example']);
      expect(site.paths()).toEqual(['/robots.txt', '/', '/contact', '/privacy', '/about']);
    });

    it('when concurrency is 1, then websites of different hosts are visited one after another', async () => {
      const site = await start((_request, response) => setTimeout(() => html(response, 'hello'), 30));
      const enricher = createWebsiteEnricher(options({ concurrency: 1 }));
      await Promise.all(['a', 'b', 'c'].map((name) => enricher.enrich(`http://${name}.example:${site.port}/`, never)));
      expect(site.requests).toHaveLength(6);
      expect(site.maxInFlight).toBe(1);
    });
  });

  describe('SSRF protection (allowPrivateNetworks: false)', () => {
    let site: FakeSite;
    beforeAll(async () => {
      site = await start((request, response) => {
        if (request.url === '/to-internal') return redirect(response, `http://internal.example:${site.port}/`);
        return html(response, '<a href="mailto:leak@internal.example">x</a>');
      });
    });

    it('when the host resolves to 127.0.0.1, then it is refused without any connection', async () => {
      const lookup = jest.fn(loopbackLookup());
      const result = await createWebsiteEnricher(options({ allowPrivateNetworks: false, lookup })).enrich(
        `http://shop.example:${site.port}/`,
        never,
      );
      expect(result).toEqual(EMPTY);
      expect(lookup).toHaveBeenCalledWith('shop.example');
      expect(site.connections).toBe(0);
    });

    it.each(['http://127.0.0.1:PORT/', 'http://[::1]:PORT/', 'http://0x7f.1:PORT/', 'http://localhost:PORT/'])(
      'when the URL is %s, then it is refused without any connection',
      async (url) => {
        const result = await createWebsiteEnricher(options({ allowPrivateNetworks: false })).enrich(
          url.replace('PORT', String(site.port)),
          never,
        );
        expect(result).toEqual(EMPTY);
        expect(site.connections).toBe(0);
      },
    );

    it('when a public hop redirects to a host resolving to a private address, then the redirect target is never contacted', async () => {
      // loopback stands in for a public address here; internal.example also resolves to 10.0.0.8
      const policy = { isForbiddenAddress: (ip: string) => ip !== '127.0.0.1' && isForbiddenAddress(ip), isAllowedPort: () => true };
      const lookup = loopbackLookup({ 'internal.example': ['127.0.0.1', '10.0.0.8'] });
      const enricher = createEnricherWithPolicy(options({ allowPrivateNetworks: false, lookup }), policy);
      expect(await enricher.enrich(`http://public.example:${site.port}/to-internal`, never)).toEqual(EMPTY);
      expect(site.requests.map((seen) => seen.host)).not.toContain(`internal.example:${site.port}`);
      expect(site.paths()).toContain('/to-internal');
    });
  });

  describe('failures and cancellation', () => {
    it.each([
      ['not a URL', 'http://'],
      ['an unsupported scheme', 'ftp://shop.example/'],
      ['an empty string', '  '],
    ])('when the website is %s, then the result is empty', async (_case, url) => {
      expect(await createWebsiteEnricher(options()).enrich(url, never)).toEqual(EMPTY);
    });

    it('when DNS fails or nothing listens, then the result is empty', async () => {
      const failing = createWebsiteEnricher(options({ lookup: () => Promise.reject(new Error('ENOTFOUND')) }));
      expect(await failing.enrich('http://gone.example/', never)).toEqual(EMPTY);
      const closed = await startFakeSite(() => undefined);
      const port = closed.port;
      await closed.close();
      expect(await createWebsiteEnricher(options()).enrich(`http://gone.example:${port}/`, never)).toEqual(EMPTY);
    });

    it('when the home page is not HTML, then the result is empty', async () => {
      const site = await start((request, response) => {
        response.writeHead(200, { 'Content-Type': 'application/pdf' });
        response.end('%PDF info@pdf.example');
      });
      expect(await createWebsiteEnricher(options()).enrich(`http://pdf.example:${site.port}/`, never)).toEqual(EMPTY);
    });

    it('when the caller aborts during a visit, then enrich rejects with the signal reason', async () => {
      let arrived: () => void = () => undefined;
      const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
      const site = await start(() => arrived());
      const controller = new AbortController();
      const visit = createWebsiteEnricher(options()).enrich(`http://stuck.example:${site.port}/`, controller.signal);
      await requestArrived;
      const reason = new Error('job cancelled');
      controller.abort(reason);
      await expect(visit).rejects.toBe(reason);
    });

    it('when the signal is already aborted, then enrich rejects with its reason without any request', async () => {
      const site = await start((_request, response) => html(response, 'x'));
      const controller = new AbortController();
      const reason = new Error('deadline');
      controller.abort(reason);
      await expect(createWebsiteEnricher(options()).enrich(`http://shop.example:${site.port}/`, controller.signal)).rejects.toBe(reason);
      expect(site.connections).toBe(0);
    });
  });
});
