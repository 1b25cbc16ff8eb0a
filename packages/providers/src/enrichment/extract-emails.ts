import { decodeEntities, htmlToText, stripWww, unescapeScriptText } from './html';

// The lookbehind stops a match from starting inside a longer token (`%20info@...`, `a.b@...`).
const EMAIL = /(?<![a-z0-9._%+-])([a-z0-9](?:[a-z0-9._+-]{0,62}[a-z0-9_+-])?)@((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24})(?![a-z0-9-])/gi;

const EMAIL_EXACT = new RegExp(`^${EMAIL.source}$`, 'i');

const OBFUSCATED_AT = /\s*(?:\[\s*(?:at|@)\s*\]|\(\s*(?:at|@)\s*\)|\{\s*(?:at|@)\s*\}|<\s*(?:at|@)\s*>)\s*/gi;
const OBFUSCATED_DOT = /\s*(?:\[\s*(?:dot|punkt|point|\.)\s*\]|\(\s*(?:dot|punkt|point|\.)\s*\)|\{\s*(?:dot|punkt|point|\.)\s*\}|<\s*(?:dot|punkt|point|\.)\s*>)\s*/gi;

// Asset names like logo@2x.png look exactly like addresses; none of these endings is a real TLD.
const ASSET_TLDS = new Set(['png', 'jpg', 'jpeg', 'gif', 'svg', 'webp', 'avif', 'bmp', 'ico', 'tif', 'tiff', 'css', 'js', 'mjs', 'json', 'map', 'woff', 'woff2', 'ttf', 'otf', 'eot', 'mp4', 'webm', 'pdf', 'php', 'html', 'htm']);

const PLACEHOLDER_DOMAINS = /^(?:example\.(?:com|org|net)|(?:[a-z0-9-]+\.)+example\.(?:com|org|net)|domain\.(?:com|tld)|(?:your|my)-?(?:domain|company|site|website|business|shop|store|email|mail)\.[a-z.]+|test\.com)$/;
// Address bodies only ever seen as form hints: `your@email.com`, `email@domain.com`, `user@example...`
const PLACEHOLDER_LOCALS = new Set(['your', 'youremail', 'your.email', 'yourname', 'your.name', 'you', 'name', 'email', 'e-mail', 'user', 'username', 'firstname.lastname', 'first.last', 'firstname', 'vorname.nachname', 'john.doe', 'jane.doe', 'johndoe', 'max.mustermann', 'someone']);
const PLACEHOLDER_LOCAL_DOMAINS = /^(?:email|mail|domain|company|website|site|example|beispiel)\./;

const TRACKING_DOMAINS = /(?:^|\.)(?:sentry\.io|sentry-next\.wixpress\.com|wixpress\.com|sentry\.[a-z.]+)$|^sentry[.-]/;

const ROLE_LOCALS = new Set(['info', 'contact', 'hello', 'hallo', 'hi', 'office', 'kontakt', 'mail', 'email', 'enquiries', 'enquiry', 'inquiries', 'inquiry', 'sales', 'service', 'support', 'team', 'booking', 'bookings', 'reservations', 'orders', 'shop', 'store', 'bonjour', 'ciao', 'hola']);

/**
 * Addresses published on a page, lower-cased, deduplicated, junk removed, best first: on the
 * site's own domain, then role addresses like info@, then the rest.
 */
export function extractEmails(html: string, pageHost: string): string[] {
  const source = unescapeScriptText(html);
  const decoded = decodeEntities(source);
  const found: string[] = [...fromCloudflare(source), ...fromMailto(decoded)];
  for (const match of decoded.matchAll(EMAIL)) found.push(match[0]);
  const text = htmlToText(source).replace(OBFUSCATED_AT, '@').replace(OBFUSCATED_DOT, '.');
  for (const match of text.matchAll(EMAIL)) found.push(match[0]);
  return rankEmails(found, pageHost);
}

/** Deduplicates, drops junk and orders by how likely an address reaches the business at siteHost. */
export function rankEmails(candidates: Iterable<string>, siteHost: string): string[] {
  const site = stripWww(siteHost.replace(/:\d+$/, '').replace(/\.$/, ''));
  const unique = new Set<string>();
  for (const candidate of candidates) {
    const email = candidate.trim().toLowerCase();
    if (isValidShape(email) && !isJunkEmail(email)) unique.add(email);
  }
  const tier = (email: string): number => {
    const [local = '', domain = ''] = email.split('@');
    if (site && (domain === site || domain.endsWith(`.${site}`) || site.endsWith(`.${domain}`))) return 0;
    return ROLE_LOCALS.has(local) ? 1 : 2;
  };
  // Array.prototype.sort is stable, so each tier keeps the order of appearance
  return [...unique].sort((a, b) => tier(a) - tier(b));
}

export function isJunkEmail(email: string): boolean {
  const [local = '', domain = ''] = email.toLowerCase().split('@');
  const tld = domain.slice(domain.lastIndexOf('.') + 1);
  if (ASSET_TLDS.has(tld)) return true;
  if (PLACEHOLDER_DOMAINS.test(domain)) return true;
  if (PLACEHOLDER_LOCALS.has(local) && PLACEHOLDER_LOCAL_DOMAINS.test(domain)) return true;
  if (local === 'your' || local === 'youremail' || local === 'your.email' || local === 'yourname') return true;
  if (TRACKING_DOMAINS.test(domain)) return true;
  // hashed local parts are the keys of error-reporting DSNs and tracking mailboxes
  if (/^[0-9a-f]{24,}$/.test(local)) return true;
  const squashed = local.replace(/[-_.]/g, '');
  return /noreply|donotreply|mailerdaemon/.test(squashed);
}

function isValidShape(email: string): boolean {
  const [local = '', domain = ''] = email.split('@');
  return email.length <= 254 && local.length <= 64 && !local.includes('..') && !domain.includes('..') && EMAIL_EXACT.test(email);
}

function fromMailto(html: string): string[] {
  const emails: string[] = [];
  for (const match of html.matchAll(/mailto:([^"'<>\s]+)/gi)) {
    const target = (match[1] ?? '').split('?')[0] ?? '';
    let decoded = target;
    try {
      decoded = decodeURIComponent(target);
    } catch {
      // a stray % in the link: keep it raw, the shape check decides
    }
    for (const part of decoded.split(/[,;]/)) emails.push(part.trim());
  }
  return emails;
}

/** Cloudflare's "email protection" replaces addresses with a hex string XOR-ed by its first byte. */
function fromCloudflare(html: string): string[] {
  const emails: string[] = [];
  for (const match of html.matchAll(/(?:data-cfemail=["']?|\/cdn-cgi\/l\/email-protection#)([0-9a-f]{4,512})/gi)) {
    const hex = match[1] ?? '';
    const key = parseInt(hex.slice(0, 2), 16);
    let email = '';
    for (let i = 2; i + 1 < hex.length; i += 2) email += String.fromCharCode(parseInt(hex.slice(i, i + 2), 16) ^ key);
    emails.push(email);
  }
  return emails;
}
