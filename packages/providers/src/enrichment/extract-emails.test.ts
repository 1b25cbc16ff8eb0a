import { isJunkEmail, rankSightings, sightEmails, type PageContext } from './extract-emails';
import { parsePage } from './html';

// The enricher's own steps, composed as it composes them (website-enricher.ts): parse, sight, rank.
const extractEmails = (html: string, pageHost: string, context: PageContext = {}): string[] =>
  rankSightings(sightEmails(parsePage(html), html, context), pageHost).map((r) => r.email);
const rankEmails = (candidates: Iterable<string>, siteHost: string): string[] =>
  rankSightings(
    [...candidates].map((email) => ({ email, basis: 'page text' as const, credit: false })),
    siteHost,
  ).map((r) => r.email);

describe('extractEmails', () => {
  it('when a page has a mailto link with a query string and percent-encoding, then the bare address is returned', () => {
    const html = '<a href="mailto:Info%40Bakery.example?subject=Order%20cake&body=hi">Write us</a>';
    expect(extractEmails(html, 'bakery.example')).toEqual(['info@bakery.example']);
  });

  it('when a mailto link lists several recipients, then each is returned', () => {
    expect(extractEmails('<a href="mailto:a@shop.example,b@shop.example">x</a>', 'shop.example')).toEqual([
      'a@shop.example',
      'b@shop.example',
    ]);
  });

  it('when an address appears in plain text, then it is returned without trailing punctuation', () => {
    const html = '<p>Questions? Write to sales@shop.example.</p><td>Tel 123</td><td>office@shop.example</td>';
    expect(extractEmails(html, 'www.shop.example')).toEqual(['sales@shop.example', 'office@shop.example']);
  });

  it.each([
    ['name [at] domain [dot] com', 'anna [at] bistro [dot] example', 'anna@bistro.example'],
    ['name(at)domain(dot)com', 'anna(at)bistro(dot)example', 'anna@bistro.example'],
    ['braces and upper case', 'anna {AT} bistro {DOT} example', 'anna@bistro.example'],
    ['bracketed @ and real dots', 'anna [@] bistro.example', 'anna@bistro.example'],
    ['German punkt', 'anna (at) bistro (punkt) example', 'anna@bistro.example'],
    ['decimal entity', 'anna&#64;bistro&#46;example', 'anna@bistro.example'],
    ['hex entity', 'anna&#x40;bistro.example', 'anna@bistro.example'],
    ['named entity', 'anna&commat;bistro&period;example', 'anna@bistro.example'],
    ['entity-encoded mailto', '<a href="&#109;&#97;&#105;&#108;&#116;&#111;&#58;anna&#64;bistro.example">mail</a>', 'anna@bistro.example'],
    ['address split by inline tags around a bracketed at', 'anna<span> [at] </span>bistro<span>[dot]</span>example', 'anna@bistro.example'],
    ['JSON-LD with escapes', '<script type="application/ld+json">{"email":"anna\\u0040bistro.example"}</script>', 'anna@bistro.example'],
    [
      'Cloudflare email protection',
      '<a href="/cdn-cgi/l/email-protection" data-cfemail="5a3b34343b1a3833292e2835743f223b372a363f">[email&#160;protected]</a>',
      'anna@bistro.example',
    ],
    [
      'Cloudflare protected link',
      '<a href="/cdn-cgi/l/email-protection#5a3b34343b1a3833292e2835743f223b372a363f">mail</a>',
      'anna@bistro.example',
    ],
  ])('when the address is obfuscated as %s, then it is decoded', (_kind, html, expected) => {
    expect(extractEmails(html, 'bistro.example')).toContain(expected);
  });

  it('when "at" and "dot" appear as bare words spelling another domain than the business\'s, then no address is invented', () => {
    expect(extractEmails('<p>Meet anna at bistro dot example, or at the market.</p>', 'shop.example')).toEqual([]);
  });

  it.each([
    ['Spanish', 'Correo: reservas arroba casapepe punto es', 'reservas@casapepe.es'],
    ['Polish', 'E-mail: biuro małpa kwiaty kropka pl', 'biuro@kwiaty.pl'],
    ['Korean, on a webmail domain', '이메일: casapepe.es 골뱅이 naver 점 com', 'casapepe.es@naver.com'],
  ])('when an address is spelled with the %s words for at and dot, then it is read', (_language, text, expected) => {
    const host = expected.endsWith('naver.com') ? 'casapepe.es' : (expected.split('@')[1] ?? '');
    expect(extractEmails(`<p>${text}</p>`, host)).toEqual([expected]);
  });

  it("when an address waits in data attributes behind a javascript: link or in an island's props, then it is read", () => {
    const html = `<a href="javascript:void(0)" data-user="info" data-domain="shop.example">Write</a>
      <astro-island props="{&quot;email&quot;:[0,&quot;team@shop.example&quot;]}"><button>Show</button></astro-island>`;
    expect(extractEmails(html, 'shop.example')).toEqual(['info@shop.example', 'team@shop.example']);
  });

  it('when a mailto link has cc and bcc recipients, then each is read', () => {
    expect(
      extractEmails('<a href="mailto:a@shop.example?cc=b@shop.example&amp;bcc=c@shop.example&amp;subject=x">x</a>', 'shop.example'),
    ).toEqual(['a@shop.example', 'b@shop.example', 'c@shop.example']);
  });

  it('when an address has an internationalised domain, in text or a mailto, then it is returned in ASCII (punycode)', () => {
    expect(extractEmails('<p>E-Mail: info@bäckerei-müller.de</p>', 'xn--bckerei-mller-bfb28a.de')).toEqual([
      'info@xn--bckerei-mller-bfb28a.de',
    ]);
  });

  it('when an inline script writes an address with &#64;, then it is read', () => {
    const html = `<script>document.write('<a href="mailto:' + 'post' + '&#64;' + 'shop.example' + '">mail</a>');</script>`;
    expect(extractEmails(html, 'shop.example')).toEqual(['post@shop.example']);
  });

  it.each([
    ['retina image name', '<img src="/img/logo@2x.png"> <img srcset="hero@3x.webp 3x">'],
    ['asset file names', 'icon@2x.jpg sprite@2x.gif arrow@2x.svg theme@1.5x.css bundle@4.1.js'],
    ['example.com placeholders', 'you@example.com info@example.org mail@shop.example.net'],
    ['form placeholders', '<input placeholder="email@domain.com"> your@email.com name@yourdomain.com user@example.de yourname@mail.com'],
    [
      'error-reporting addresses',
      'abc@sentry.io 605a7baede844d278b89dc95ae0a9123@sentry-next.wixpress.com x@o123.ingest.sentry.io dev@wixpress.com a@sentry.wixpress.com',
    ],
    ['hashed local parts', '8d7c2a8e0f4b4a1f9e3c6b5a4d3c2b1a@tracking.shop.net'],
    ['no-reply senders', 'noreply@shop.example no-reply@shop.example donotreply@shop.example do_not_reply@shop.example'],
    ['package versions', 'lodash@4.17.21 core-js@3.6.5 @babel/core@7.1.0'],
  ])('when the page contains %s, then they are rejected as junk', (_kind, html) => {
    expect(extractEmails(html, 'shop.example')).toEqual([]);
  });

  it('when the site uses the .example TLD, then its addresses are kept (only example.com/.org/.net are placeholders)', () => {
    expect(extractEmails('hello@acme-bakery.example', 'acme-bakery.example')).toEqual(['hello@acme-bakery.example']);
  });

  it('when the same address appears in several forms and cases, then it is returned once, lower-cased', () => {
    const html = '<a href="mailto:Info@Shop.example">Info@Shop.example</a> info [at] shop [dot] example';
    expect(extractEmails(html, 'shop.example')).toEqual(['info@shop.example']);
  });

  it('when addresses of several kinds are found, then own domain comes first, then a webmail address, and other domains in plain text are left out', () => {
    const html = 'jane.doe@gmail.com, info@partner.example, anna@shop.example, contact@other.example, team@mail.shop.example';
    expect(extractEmails(html, 'www.shop.example:8080')).toEqual(['anna@shop.example', 'team@mail.shop.example', 'jane.doe@gmail.com']);
  });

  it.each([
    ['a caterer', 'Our catering partner Fein & Frisch takes orders at orders@feinfrisch.example'],
    ['an ordering platform', 'Order online through Orderly, support: help@orderly.example'],
    ['a plan administrator', 'Our 401(k) plan is administered by Nordvest; participants may write to service@nordvest.example'],
  ])("when the text around an address names another party (%s), then it is not the business's, even on its contact page", (_kind, text) => {
    expect(extractEmails(`<p>${text}</p><p>Email: anna@shop.example</p>`, 'shop.example', { contactPage: true })).toEqual([
      'anna@shop.example',
    ]);
  });

  it('when a no-reply sender is named in another language, then it is junk', () => {
    for (const local of ['ne-pas-repondre', 'nao-responda', 'keine-antwort', 'nie-odpowiadaj', 'ikke-svar', 'yanitlamayin'])
      expect(isJunkEmail(`${local}@shop.example`)).toBe(true);
  });
});

describe('addresses ranked by who they belong to', () => {
  const footer =
    '<footer><p>© Bäckerei Anna</p><p class="small">Website by Pixel Studio – <a href="mailto:hello@pixelstudio.example">hello@pixelstudio.example</a></p></footer>';

  it("when a web designer's address is in the footer credit line, then it is never returned, and the business's free-mail address is", () => {
    const html = `<div class="contact"><p>Schreiben Sie uns: baeckerei.anna@gmail.com</p></div>${footer}`;
    expect(extractEmails(html, 'baeckerei-anna.example')).toEqual(['baeckerei.anna@gmail.com']);
  });

  it.each([
    ['Webdesign: Studio Nord, mail@studionord.example'],
    ['Réalisé par Agence Web – contact@agence.example'],
    ['Diseño web por Estudio – hola@estudio.example'],
    ['<span class="credits">studio@agency.example</span>'],
  ])('when a credit line reads %s, then its address is left out', (credit) => {
    expect(extractEmails(`<p>${credit}</p><p>anna@gmail.com</p>`, 'bakery.example')).toEqual(['anna@gmail.com']);
  });

  it("when an address is on the site domain, in JSON-LD, in a contact block, by the business name or in plain text, then that is the order, and another firm's is left out", () => {
    const html = `
      <p>Partner: partner@partner-firm.example</p>
      <p>Write to <a href="mailto:anna.baker@gmail.com">us</a> at Bakery Anna</p>
      <address>orders@bakery-orders.example</address>
      <script type="application/ld+json">{"@type":"Bakery","email":"ld@bakery-mail.example"}</script>
      <p>hello@bakery.example</p>`;
    expect(extractEmails(html, 'www.bakery.example', { businessName: 'Bakery Anna' })).toEqual([
      'hello@bakery.example',
      'ld@bakery-mail.example',
      'orders@bakery-orders.example',
      'anna.baker@gmail.com',
    ]);
  });

  it('when the business address and the credit share one footer line, then only what follows the credit is dropped', () => {
    const html = '<footer><p>© 2026 Café Rosa · cafe.rosa@gmail.com · Website by Pixel Studio, hello@pixelstudio.example</p></footer>';
    expect(extractEmails(html, 'cafe-rosa.example')).toEqual(['cafe.rosa@gmail.com']);
  });

  it('when a contact block says the shop makes things by hand, then its address is not taken for a credit', () => {
    expect(extractEmails('<div class="contact"><p>Made by hand in Lyon. Orders: anna.bakes@gmail.com</p></div>', 'bakery.example')).toEqual(
      ['anna.bakes@gmail.com'],
    );
  });

  it('when an address is split by inline tags, then it is read whole', () => {
    expect(extractEmails('<p>in<b>fo</b>@bak<span>ery</span>.example</p>', 'bakery.example')).toEqual(['info@bakery.example']);
  });
});

describe('rankEmails and isJunkEmail', () => {
  it('when candidates are malformed, then they are dropped', () => {
    expect(rankEmails(['a..b@shop.example', '@shop.example', 'a@b', 'ok@shop.example'], 'shop.example')).toEqual(['ok@shop.example']);
  });

  it('when an address is real, then it is not junk', () => {
    expect(isJunkEmail('info@bakery.de')).toBe(false);
    expect(isJunkEmail('name@bakery.de')).toBe(false);
    expect(isJunkEmail('hello@sentryfarm.co.uk')).toBe(false);
  });
});
