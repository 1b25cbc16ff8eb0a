import { decodeEntities, findContactPages, parsePage } from './html';

// What the enricher reads of a page (parsePage, findContactPages), in the shapes these cases compare.
const htmlToText = (html: string): string =>
  parsePage(html)
    .blocks.map((b) => b.text)
    .join('\n');
const extractAnchors = (html: string) => parsePage(html).anchors.map(({ href, text }) => ({ href, text }));
const findContactLinks = (html: string, pageUrl: URL, limit: number): URL[] =>
  findContactPages(parsePage(html), pageUrl, limit).map((page) => page.url);

const HOME = new URL('https://www.shop.example/');

describe('findContactLinks', () => {
  it('when the home page links to several pages, then contact, legal notice, about and team pages come in that order', () => {
    const html = `
      <a href="/team">Our team</a> <a href="/about">About</a> <a href="/products">Products</a>
      <a href="/impressum">Impressum</a> <a href="/page?id=7">Kontakt</a> <a href="https://shop.example/contact-us#form">Contact</a>`;
    expect(findContactLinks(html, HOME, 10).map((url) => url.href)).toEqual([
      'https://www.shop.example/page?id=7',
      'https://shop.example/contact-us',
      'https://www.shop.example/impressum',
      'https://www.shop.example/about',
      'https://www.shop.example/team',
    ]);
  });

  it('when links leave the site, point at files, repeat or use other schemes, then they are skipped', () => {
    const html = `
      <a href="https://facebook.com/contact">Contact</a> <a href="/contact.pdf">Contact (PDF)</a>
      <a href="mailto:contact@shop.example">Contact</a> <a href="javascript:contact()">Contact</a>
      <a href="/contact">Contact</a> <a href="/contact#map">Contact</a> <a href="/">Home</a>`;
    expect(findContactLinks(html, HOME, 10).map((url) => url.href)).toEqual(['https://www.shop.example/contact']);
  });

  it('when there are more candidates than the limit, then only the best are kept', () => {
    const html = '<a href="/about">About</a><a href="/contact">Contact</a><a href="/team">Team</a>';
    expect(findContactLinks(html, HOME, 1).map((url) => url.pathname)).toEqual(['/contact']);
  });

  it('when the path is percent-encoded, then it is matched decoded', () => {
    expect(findContactLinks('<a href="/%C3%BCber-uns">Wir</a>', HOME, 3).map((url) => url.pathname)).toEqual(['/%C3%BCber-uns']);
  });
});

describe('contact pages found by link text, in the languages served', () => {
  it.each([
    ['Kontakt', 'contact'],
    ['Contactez-nous', 'contact'],
    ['Contacto', 'contact'],
    ['Contatti', 'contact'],
    ['Get in touch', 'contact'],
    ['Impressum', 'imprint'],
    ['Mentions légales', 'imprint'],
    ['Aviso legal', 'imprint'],
    ['Über uns', 'about'],
    ['Chi siamo', 'about'],
    ['Quiénes somos', 'about'],
    ['Qui sommes-nous ?', 'about'],
    ['Over ons', 'about'],
    ['Unser Team', 'team'],
    ['Équipe', 'team'],
  ])('when a link with an opaque path says "%s", then it is opened as a %s page', (text) => {
    const html = `<a href="/p/4711">${text}</a><a href="/p/1">Produkte</a>`;
    expect(findContactLinks(html, HOME, 5).map((url) => url.pathname)).toEqual(['/p/4711']);
  });

  it('when pages of every kind are linked by text only, then contact comes before the legal notice, about and team', () => {
    const html =
      '<a href="/x1">Équipe</a><a href="/x2">Chi siamo</a><a href="/x3">Mentions l&eacute;gales</a><a href="/x4"><span>Nous</span> <b>contacter</b></a>';
    expect(findContactLinks(html, HOME, 5).map((url) => url.pathname)).toEqual(['/x4', '/x3', '/x2', '/x1']);
  });

  it('when paths are in another language, then they are recognised with accents and separators folded', () => {
    const html = '<a href="/mentions_legales">ML</a><a href="/qui-sommes-nous/">QSN</a><a href="/kontaktformular">Form</a>';
    expect(findContactLinks(html, HOME, 5).map((url) => url.pathname)).toEqual([
      '/kontaktformular',
      '/mentions_legales',
      '/qui-sommes-nous/',
    ]);
  });
});

describe('extractAnchors and decodeEntities', () => {
  it('when anchors use any quoting and nested markup, then href and text are extracted', () => {
    expect(extractAnchors(`<a class=x href=/a>A</a><A HREF='/b'><span>B &amp; C</span></A><a href="/c?x=1&amp;y=2">C</a>`)).toEqual([
      { href: '/a', text: 'A' },
      { href: '/b', text: 'B & C' },
      { href: '/c?x=1&y=2', text: 'C' },
    ]);
  });

  it('when named entities of the full HTML table are used, then they decode (&eacute;, &uuml;, &ndash;, &commat;)', () => {
    expect(decodeEntities('Caf&eacute; M&uuml;ller &ndash; anna&commat;bistro&period;example')).toBe('Café Müller – anna@bistro.example');
    expect(htmlToText('<h1>Cr&egrave;me &amp; Caf&eacute;</h1><p>Stra&szlig;e&nbsp;5</p>')).toBe('Crème & Café\nStraße 5');
  });

  it('when text is split across inline tags, then it reads as one word, and block elements still separate', () => {
    expect(htmlToText('<p>Call <b>Sm</b>ile<span>Dent</span>al</p><div>Mon</div><div>Tue</div>')).toBe('Call SmileDental\nMon\nTue');
  });

  it('when scripts and styles are on the page, then their text is not page text, and JSON-LD is kept aside', () => {
    const page = parsePage(
      '<style>.a{}</style><script>var x = "a@b.example"</script><script type="application/ld+json">{"email":"x@y.example"}</script><p>Hi</p>',
    );
    expect(page.blocks.map((b) => b.text)).toEqual(['Hi']);
    expect(page.jsonLd).toEqual(['{"email":"x@y.example"}']);
  });
});

describe('pages a person opens, in many languages', () => {
  it.each([
    ['Turkish', '/iletisim', 'İletişim'],
    ['Japanese', '/shop/', '店舗情報'],
    ['Korean', '/sub/location.php', '오시는 길'],
    ['Italian bookings', '/prenotazioni/', 'Prenotazioni'],
    ['Portuguese appointments', '/marcacoes/', 'Marcações'],
    ['Polish office', '/biuro/', 'Biuro'],
    ['an icon with an accessible name', '/p/3', ''],
  ])('when the contact page is named in %s, then it is chosen', (_kind, path, text) => {
    const link = text === '' ? `<a href="${path}" aria-label="Kontakt"><svg></svg></a>` : `<a href="${path}">${text}</a>`;
    expect(findContactLinks(`<a href="/menu">Menu</a>${link}`, HOME, 5).map((url) => url.pathname)).toEqual([path]);
  });

  it('when a root page only refreshes, or shows a page in an iframe, then the target and the frame are read', () => {
    const page = parsePage(`<meta http-equiv="refresh" content="0; URL='/de/'"><iframe src="/kontakt-embed.html"></iframe>`);
    expect(page.refresh).toBe('/de/');
    expect(page.frames).toEqual(['/kontakt-embed.html']);
  });
});
