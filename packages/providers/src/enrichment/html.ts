/**
 * HTML read as a browser reads it, with htmlparser2 (and its `entities` tables): text split across
 * inline tags joins up ("in<b>fo</b>@shop" is "info@shop"), block elements separate, every named
 * entity decodes. Pages are never rendered or executed; scripts are kept aside as data.
 */
import { decodeHTML } from 'entities';
import { Parser } from 'htmlparser2';
import { pageKindOf, type PageKind } from './page-words';

export function decodeEntities(text: string): string {
  return decodeHTML(text);
}

/** Undoes the escapes of URLs and text embedded in inline JSON (`https:\/\/`, `\u0040`, `\n`). */
export function unescapeScriptText(html: string): string {
  return html
    .replace(/\\u([0-9a-f]{4})/gi, (_escape, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/\\\//g, '/')
    .replace(/\\[nrt]/g, ' ');
}

/** What a block of text is presented as, from its markup and its words. */
export interface TextBlock {
  text: string;
  /** inside <address>, a contact/imprint/vcard element or schema.org Organization markup */
  contact: boolean;
  /**
   * Where a designer's or agency's credit begins in `text` ("Website by ..."): 0 when the markup says
   * so (class="credits"), -1 when there is none. What comes before it ("© Café Rosa, rosa@...") is not
   * the credit. A contact block is never a credit.
   */
  creditAt: number;
}

/** Where the credit phrase starts in a line of text, or -1. */
export function creditIndex(text: string): number {
  if (text.length > 300) return -1;
  const latin = `${text} `.search(CREDIT_TEXT);
  const other = text.search(CREDIT_TEXT_OTHER);
  return latin === -1 ? other : other === -1 ? latin : Math.min(latin, other);
}

export interface Anchor {
  href: string;
  text: string;
  /** index in `blocks` of the block the link sits in */
  block: number;
}

export interface PageDocument {
  blocks: TextBlock[];
  anchors: Anchor[];
  /** the text of `<script type="application/ld+json">` elements */
  jsonLd: string[];
  /** the text of other inline scripts (escaped JSON often carries addresses and profile links) */
  scripts: string[];
  /**
   * What elements carry in attributes for scripts to show (`data-email`, an island's serialised `props`,
   * `data-user` + `data-domain` joined), with the block they sit in; never a link's own href or src.
   */
  attributes: Array<{ text: string; block: number }>;
  /** the target of a `<meta http-equiv="refresh">`, as written */
  refresh: string | null;
  /** the `src` of the page's iframes, as written */
  frames: string[];
}

// Elements that a browser lays out as their own line: text never runs across their edges.
const BLOCK_TAGS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'br',
  'button',
  'caption',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'head',
  'header',
  'hr',
  'html',
  'iframe',
  'img',
  'input',
  'label',
  'legend',
  'li',
  'main',
  'nav',
  'ol',
  'option',
  'p',
  'pre',
  'section',
  'select',
  'summary',
  'table',
  'tbody',
  'td',
  'textarea',
  'tfoot',
  'th',
  'thead',
  'title',
  'tr',
  'ul',
]);
// Code samples show addresses as syntax (`git config user.email you@...`), never as a way to reach the business.
const SKIPPED_TAGS = new Set(['style', 'template', 'svg', 'code', 'kbd', 'samp']);
const CONTACT_MARKUP =
  /contact|kontakt|contacto|contatti|impressum|imprint|vcard|h-card|business-info|store-info|company-info|anschrift|adresse|address/i;
const CREDIT_MARKUP = /credit|designed-?by|made-?by|powered-?by|agency|webdesign|site-?by/i;
const ORGANIZATION_TYPE =
  /schema\.org\/(?:Organization|LocalBusiness|Corporation|Store|[A-Za-z]*(?:Business|Store|Restaurant|Office|Practice|Clinic|Dentist|Shop))/i;
// "Website by Acme", "Webdesign: Acme", "Réalisé par", "Erstellt von", "Diseño web por", "Realizzato da" ...
const CREDIT_TEXT =
  /\b(?:(?:web)?site|web ?design(?:ed)?|webdesign|design(?:ed)?|developed|built|made|created|powered|theme|concept|konzept|realis[eé]e?|r[eé]alis[eé]e?|con[cç]eption|erstellt|umgesetzt|umsetzung|gestaltet|gestaltung|entwickelt|dise[nñ]o(?: web)?|desarrollad[oa]|realizzato|sviluppato|progettato|criado|desenvolvido|ontwerp|ontwikkeld|gemaakt|realisatie|projekt|realizacja|wykonanie|wykonana|stworzone)(?:\s*(?:&|and|und|et|e|y|en|i|\+|,)\s*[\p{L}-]+){0,3}\s*(?:(?:by|von|durch|par|por|da|di|door|przez)\s*:?|:)\s/iu;
// Scripts without word spaces or Latin letters: "サイト制作：", "ホームページ制作", "עיצוב ובניית אתרים:", "تصميم وتطوير:".
const CREDIT_TEXT_OTHER =
  /(?:サイト制作|ホームページ制作|ウェブ制作|web制作|制作会社|デザイン・制作|עיצוב (?:ו)?(?:בניית|פיתוח)|בניית אתרים|תכנות ועיצוב|تصميم وتطوير|تصميم الموقع|تطوير الموقع|برمجة وتصميم)/iu;

/** One pass of htmlparser2 over the page: its text blocks, links, and scripts. */
export function parsePage(html: string): PageDocument {
  const blocks: TextBlock[] = [];
  const anchors: Anchor[] = [];
  const jsonLd: string[] = [];
  const scripts: string[] = [];
  const stack: Array<{ name: string; contact: boolean; credit: boolean }> = [];
  let buffer = '';
  let contact = false;
  let credit = false;
  let skipping = 0;
  let script: { jsonLd: boolean; text: string } | null = null;
  const openAnchors: Array<{ href: string; text: string; label: string }> = [];
  const attributesFound: PageDocument['attributes'] = [];
  const frames: string[] = [];
  let refresh: string | null = null;

  const flush = (): void => {
    const text = buffer.replace(/\s+/g, ' ').trim();
    if (text !== '') blocks.push({ text, contact, creditAt: contact ? -1 : credit ? 0 : creditIndex(text) });
    buffer = '';
    contact = false;
    credit = false;
  };
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === 'script') {
          script = { jsonLd: /ld\+json/i.test(attributes.type ?? ''), text: '' };
          return;
        }
        if (SKIPPED_TAGS.has(name)) skipping++;
        if (BLOCK_TAGS.has(name)) flush();
        const marks = `${attributes.class ?? ''} ${attributes.id ?? ''} ${attributes.itemprop ?? ''}`;
        stack.push({
          name,
          contact: name === 'address' || CONTACT_MARKUP.test(marks) || ORGANIZATION_TYPE.test(attributes.itemtype ?? ''),
          credit: CREDIT_MARKUP.test(marks),
        });
        // an icon link's accessible name is what a person using a screen reader hears, and what the icon means
        if (name === 'a')
          openAnchors.push({ href: (attributes.href ?? '').trim(), text: '', label: attributes['aria-label'] ?? attributes.title ?? '' });
        if (name === 'iframe' && attributes.src) frames.push(attributes.src.trim());
        if (name === 'meta' && /^refresh$/i.test(attributes['http-equiv'] ?? '')) refresh ??= refreshTarget(attributes.content ?? '');
        const carried = carriedText(attributes);
        if (carried !== '') attributesFound.push({ text: carried, block: blocks.length });
      },
      ontext(data) {
        if (script) {
          script.text += data;
          return;
        }
        if (skipping > 0) return;
        // NFKC: full-width forms (Japanese pages write ＠ and ｉｎｆｏ) read as the ASCII a reader types.
        data = data.normalize('NFKC');
        buffer += data;
        for (const anchor of openAnchors) anchor.text += data;
        if (data.trim() !== '') {
          contact ||= stack.some((e) => e.contact);
          credit ||= stack.some((e) => e.credit);
        }
      },
      onclosetag(name) {
        if (name === 'script') {
          if (script) (script.jsonLd ? jsonLd : scripts).push(script.text);
          script = null;
          return;
        }
        const index = stack.map((e) => e.name).lastIndexOf(name);
        if (index >= 0) stack.length = index;
        if (SKIPPED_TAGS.has(name)) skipping = Math.max(0, skipping - 1);
        if (name === 'a') {
          const anchor = openAnchors.pop();
          if (anchor) {
            const text = anchor.text.replace(/\s+/g, ' ').trim();
            anchors.push({ href: anchor.href, text: text === '' ? anchor.label.trim() : text, block: blocks.length });
          }
        }
        if (BLOCK_TAGS.has(name)) flush();
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  flush();
  return { blocks, anchors, jsonLd, scripts, attributes: attributesFound, refresh, frames };
}

export { foldWords, type PageKind } from './page-words';

const NOT_A_PAGE = /\.(?:pdf|jpe?g|png|gif|svg|webp|zip|docx?|xlsx?|pptx?|mp[34]|mov|avi|ics|vcf|css|js|xml|json)$/i;

/** Same site: the same host, ignoring a `www.` on either side (apex and www serve one business). */
export function isSameSite(a: URL, b: URL): boolean {
  return stripWww(a.hostname) === stripWww(b.hostname);
}

export function stripWww(hostname: string): string {
  return hostname.toLowerCase().replace(/^www\./, '');
}

/** Links of a parsed home page that look like contact/about pages, most promising first, with what each looks like it leads to. */
export function findContactPages(page: PageDocument, pageUrl: URL, limit: number): Array<{ url: URL; kind: PageKind }> {
  const scored: Array<{ url: URL; kind: PageKind; score: number; order: number }> = [];
  const seen = new Set<string>([withoutHash(pageUrl)]);
  for (const anchor of page.anchors) {
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
    const found = pageKindOf(`${path} ${url.search}`, anchor.text);
    if (found === null) continue;
    seen.add(key);
    url.hash = '';
    scored.push({ url, kind: found.kind, score: found.score, order: scored.length });
  }
  return scored
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, limit)
    .map(({ url, kind }) => ({ url, kind }));
}

function withoutHash(url: URL): string {
  return url.href.replace(/#.*$/, '');
}

/** `0; url=/de/`, `5;URL='https://x/'` → the URL part, or null. */
function refreshTarget(content: string): string | null {
  const match = /^\s*\d*(?:\.\d+)?\s*[;,]?\s*(?:url\s*=\s*)?(['"]?)(.+?)\1\s*$/i.exec(content);
  const target = match?.[2]?.trim() ?? '';
  return target === '' || /^\d+$/.test(target) ? null : target;
}

// Attributes a page's own script reads to show contact data: data-*, an island's props, a value.
const CARRYING = /^(?:data-[\w-]+|props|value|content|v-bind:[\w-]+|:[\w-]+)$/;
const LOCAL_NAME = /^data-(?:[\w-]*-)?(?:user|username|name|local|mailbox|account|email-user|u|e)$/;
const DOMAIN_NAME = /^data-(?:[\w-]*-)?(?:domain|host|hostname|server|site|d|at)$/;

/**
 * The text an element carries in attributes for a script to render: every carrying attribute's value,
 * and a user part and a domain part joined with "@" (`data-user="info" data-domain="shop.de"`), as the
 * theme helpers that hide addresses behind `javascript:` links join them.
 */
function carriedText(attributes: Record<string, string>): string {
  const parts: string[] = [];
  let local = '';
  let domain = '';
  for (const [name, value] of Object.entries(attributes)) {
    if (!CARRYING.test(name) || value.length > 20_000) continue;
    if (LOCAL_NAME.test(name) && /^[\w.+-]{1,64}$/.test(value)) local = value;
    else if (DOMAIN_NAME.test(name) && /^[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+$/u.test(value)) domain = value;
    if (/[@.]/.test(value)) parts.push(value);
  }
  if (local !== '' && domain !== '') parts.push(`${local}@${domain}`);
  return parts.join(' ');
}
