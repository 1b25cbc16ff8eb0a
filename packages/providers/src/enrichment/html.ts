/** Just enough HTML handling for contact extraction; pages are never rendered or executed. */

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  commat: '@',
  period: '.',
  sol: '/',
  colon: ':',
  lpar: '(',
  rpar: ')',
  lsqb: '[',
  rsqb: ']',
  lbrack: '[',
  rbrack: ']',
  lcub: '{',
  rcub: '}',
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});?/gi, (entity, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? entity;
  });
}

/** Undoes the escapes of URLs and text embedded in inline JSON (`https:\/\/`, `\u0040`, `\n`). */
export function unescapeScriptText(html: string): string {
  return html
    .replace(/\\u([0-9a-f]{4})/gi, (_escape, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/\\\//g, '/')
    .replace(/\\[nrt]/g, ' ');
}

/**
 * Tags become spaces so text from neighbouring cells never glues together into one address;
 * whitespace runs collapse so later patterns that allow spaces stay linear.
 */
export function htmlToText(html: string): string {
  return decodeEntities(html.replace(/<[^<>]*>/g, ' ')).replace(/\s+/g, ' ');
}

export interface Anchor {
  href: string;
  text: string;
}

export function extractAnchors(html: string): Anchor[] {
  const anchors: Anchor[] = [];
  for (const match of html.matchAll(/<a\b([^<>]*)>/gi)) {
    const href = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(match[1] ?? '');
    if (!href) continue;
    // Bounded look-ahead for the text: unclosed anchors must not make this quadratic in the page size.
    const start = (match.index ?? 0) + match[0].length;
    const following = html.slice(start, start + 300);
    const end = following.search(/<\/a\s*>|<a\b/i);
    anchors.push({
      href: decodeEntities((href[1] ?? href[2] ?? href[3] ?? '').trim()),
      text: htmlToText(end < 0 ? following : following.slice(0, end)).trim(),
    });
  }
  return anchors;
}

// Most likely to carry an address first: a contact page, then the legal notice (which must name one
// in much of Europe), then about and team pages.
const PAGE_KINDS: Array<[RegExp, number]> = [
  [/contact|kontakt|contacto|contatto|contatti|contato|get-in-touch|reach-us/i, 100],
  [/impressum|imprint|legal-notice|mentions-legales|aviso-legal|colophon/i, 90],
  [/about|ueber-uns|uber-uns|über-uns|a-propos|chi-siamo|quienes-somos|sobre-nos|who-we-are|our-story|unternehmen/i, 60],
  [/team|staff|our-people/i, 40],
];

const NOT_A_PAGE = /\.(?:pdf|jpe?g|png|gif|svg|webp|zip|docx?|xlsx?|pptx?|mp[34]|mov|avi|ics|vcf|css|js|xml|json)$/i;

/** Same site: the same host, ignoring a `www.` on either side (apex and www serve one business). */
export function isSameSite(a: URL, b: URL): boolean {
  return stripWww(a.hostname) === stripWww(b.hostname);
}

export function stripWww(hostname: string): string {
  return hostname.toLowerCase().replace(/^www\./, '');
}

/** Links of the home page that look like contact/about pages, most promising first. */
export function findContactLinks(html: string, pageUrl: URL, limit: number): URL[] {
  const scored: Array<{ url: URL; score: number; order: number }> = [];
  const seen = new Set<string>([withoutHash(pageUrl)]);
  for (const anchor of extractAnchors(html)) {
    let url: URL;
    try {
      url = new URL(anchor.href, pageUrl);
    } catch {
      continue;
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !isSameSite(url, pageUrl)) continue;
    if (NOT_A_PAGE.test(url.pathname)) continue;
    const key = withoutHash(url);
    if (seen.has(key)) continue;
    let path = url.pathname;
    try {
      path = decodeURIComponent(path);
    } catch {
      // keep the encoded path
    }
    const score = Math.max(...PAGE_KINDS.map(([kind, value]) => (kind.test(path) || kind.test(anchor.text) ? value : 0)));
    if (score === 0) continue;
    seen.add(key);
    url.hash = '';
    scored.push({ url, score, order: scored.length });
  }
  return scored
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, limit)
    .map((entry) => entry.url);
}

function withoutHash(url: URL): string {
  return url.href.replace(/#.*$/, '');
}
