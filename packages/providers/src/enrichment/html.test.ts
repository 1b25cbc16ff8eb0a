import { decodeEntities, extractAnchors, findContactLinks } from './html';

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

describe('extractAnchors and decodeEntities', () => {
  it('when anchors use any quoting and nested markup, then href and text are extracted', () => {
    expect(extractAnchors(`<a class=x href=/a>A</a><A HREF='/b'><span>B &amp; C</span></A><a href="/c?x=1&amp;y=2">C</a>`)).toEqual([
      { href: '/a', text: 'A' },
      { href: '/b', text: 'B & C' },
      { href: '/c?x=1&y=2', text: 'C' },
    ]);
  });

  it('when entities are unknown or out of range, then they are left alone', () => {
    expect(decodeEntities('&copy; &#0; &#x110000; &amp;')).toBe('&copy; &#0; &#x110000; &');
  });
});
