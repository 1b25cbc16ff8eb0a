import { domainToASCII } from 'node:url';
import freeProviderDomains from 'email-providers/all.json';
import { creditIndex, decodeEntities, foldWords, type PageDocument, stripWww, unescapeScriptText } from './html';
import { scriptStrings } from './script-strings';

// The lookbehind stops a match from starting inside a longer token (`%20info@...`, `a.b@...`).
// An internationalised domain is read in its own letters (info@bäckerei-müller.de) and sent on as punycode.
const EMAIL =
  /(?<![a-z0-9._%+-])([a-z0-9](?:[a-z0-9._+-]{0,62}[a-z0-9_+-])?)@((?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+(?:[a-z]{2,24}|xn--[a-z0-9-]{1,59}))(?![a-z0-9-])/giu;

const EMAIL_EXACT = new RegExp(`^${EMAIL.source}$`, 'iu');

// Webmail and internet providers' mailboxes: a business's address when presented as its contact.
const FREE_MAILBOXES = new Set<string>(freeProviderDomains as string[]);

// "name [at] domain [dot] com" and its translations (arroba, chiocciola, apenstaartje, małpa; punto, punt, kropka, ...).
const AT_WORDS = 'at|@|arroba|chiocciola|apenstaartje|apestaartje|malpa|małpa|klammeraffe|snabel-a';
const DOT_WORDS = 'dot|punkt|point|punto|punt|ponto|kropka|pont|tecka|\\.';
const OBFUSCATED_AT = new RegExp(
  `\\s*(?:\\[\\s*(?:${AT_WORDS})\\s*\\]|\\(\\s*(?:${AT_WORDS})\\s*\\)|\\{\\s*(?:${AT_WORDS})\\s*\\}|<\\s*(?:${AT_WORDS})\\s*>)\\s*`,
  'giu',
);
const OBFUSCATED_DOT = new RegExp(
  `\\s*(?:\\[\\s*(?:${DOT_WORDS})\\s*\\]|\\(\\s*(?:${DOT_WORDS})\\s*\\)|\\{\\s*(?:${DOT_WORDS})\\s*\\}|<\\s*(?:${DOT_WORDS})\\s*>)\\s*`,
  'giu',
);

// Asset names like logo@2x.png look exactly like addresses; none of these endings is a real TLD.
const ASSET_TLDS = new Set([
  'png',
  'jpg',
  'jpeg',
  'gif',
  'svg',
  'webp',
  'avif',
  'bmp',
  'ico',
  'tif',
  'tiff',
  'css',
  'js',
  'mjs',
  'json',
  'map',
  'woff',
  'woff2',
  'ttf',
  'otf',
  'eot',
  'mp4',
  'webm',
  'pdf',
  'php',
  'html',
  'htm',
]);

const PLACEHOLDER_DOMAINS =
  /^(?:example\.(?:com|org|net)|(?:[a-z0-9-]+\.)+example\.(?:com|org|net)|domain\.(?:com|tld)|(?:your|my)-?(?:domain|company|site|website|business|shop|store|email|mail)\.[a-z.]+|test\.com)$/;
// Address bodies only ever seen as form hints: `your@email.com`, `email@domain.com`, `user@example...`
// ... and their translations in form hints: `ihre@email.de`, `votre@email.fr`, `tu@email.com`, `nome@dominio.it`, `imie@domena.pl`.
const PLACEHOLDER_LOCALS = new Set([
  'your',
  'youremail',
  'your.email',
  'yourname',
  'your.name',
  'you',
  'name',
  'email',
  'e-mail',
  'user',
  'username',
  'firstname.lastname',
  'first.last',
  'firstname',
  'vorname.nachname',
  'john.doe',
  'jane.doe',
  'johndoe',
  'max.mustermann',
  'someone',
  'ihre',
  'ihr.name',
  'deine',
  'dein.name',
  'vorname',
  'votre',
  'votre.nom',
  'vous',
  'nom',
  'prenom',
  'prenom.nom',
  'tu',
  'tu.nombre',
  'su',
  'nombre',
  'tuo',
  'tuonome',
  'nome',
  'nome.cognome',
  'jouw',
  'uw',
  'naam',
  'voornaam',
  'imie',
  'imie.nazwisko',
  'twoj',
  'jan.kowalski',
  'mario.rossi',
  'jean.dupont',
  'juan.perez',
  'jan.jansen',
  'seu',
  'seunome',
]);
const PLACEHOLDER_LOCAL_DOMAINS =
  /^(?:e-?mail|mail|correo|posta|poczta|domain|domaine|dominio|domein|domena|dominio|company|firma|empresa|azienda|entreprise|bedrijf|website|site|sito|example|beispiel|exemple|ejemplo|esempio|voorbeeld|przyklad)\./;

// Booking, newsletter, shop, site-builder and business-software platforms whose widgets and notices
// publish their own support and no-reply addresses on their customers' sites: such an address is never
// the business's (a business on its own domain is unaffected: rankSightings keeps the site's domain).
const PLATFORM_DOMAINS = new Set([
  'calendly.com',
  'acuityscheduling.com',
  'squareup.com',
  'square.com',
  'setmore.com',
  'simplybook.me',
  'simplybook.it',
  'youcanbook.me',
  'doctolib.de',
  'doctolib.fr',
  'doctolib.it',
  'doctolib.com',
  'jameda.de',
  'etermin.net',
  'treatwell.com',
  'treatwell.de',
  'treatwell.fr',
  'treatwell.co.uk',
  'treatwell.nl',
  'treatwell.it',
  'treatwell.es',
  'booksy.com',
  'fresha.com',
  'planity.com',
  'shore.com',
  'salonized.com',
  'timify.com',
  'studiobookings.com',
  'mindbodyonline.com',
  'eversports.com',
  'thefork.com',
  'thefork.fr',
  'thefork.it',
  'thefork.es',
  'lafourchette.com',
  'opentable.com',
  'opentable.de',
  'opentable.co.uk',
  'resy.com',
  'quandoo.com',
  'quandoo.de',
  'booking.com',
  'airbnb.com',
  'expedia.com',
  'hrs.de',
  'tripadvisor.com',
  'yelp.com',
  'mailchimp.com',
  'list-manage.com',
  'mailerlite.com',
  'sendinblue.com',
  'brevo.com',
  'klaviyo.com',
  'sendgrid.net',
  'sendgrid.com',
  'mailjet.com',
  'convertkit.com',
  'getresponse.com',
  'cleverreach.com',
  'rapidmail.de',
  'newsletter2go.com',
  'activecampaign.com',
  'hubspot.com',
  'zendesk.com',
  'intercom.io',
  'freshdesk.com',
  'wix.com',
  'wixpress.com',
  'squarespace.com',
  'shopify.com',
  'myshopify.com',
  'webflow.com',
  'webflow.io',
  'wordpress.com',
  'wordpress.org',
  'automattic.com',
  'wpengine.com',
  'elementor.com',
  'elegantthemes.com',
  'themeforest.net',
  'envato.com',
  'godaddy.com',
  'jimdo.com',
  'weebly.com',
  'strato.de',
  'ionos.de',
  'ionos.com',
  '1und1.de',
  'one.com',
  'hostinger.com',
  'ovh.com',
  'ovh.net',
  'stripe.com',
  'paypal.com',
  'paypal.de',
  'sumup.com',
  'klarna.com',
  'mollie.com',
  'etsy.com',
  'ebay.com',
  'amazon.com',
  'amazon.de',
  'google.com',
  'facebook.com',
  'facebookmail.com',
  'instagram.com',
  'datev.de',
  'lexoffice.de',
  'sevdesk.de',
  'typeform.com',
  'jotform.com',
  'formspree.io',
  'archetypethemes.co',
  'outofthesandbox.com',
]);

const TRACKING_DOMAINS = /(?:^|\.)(?:sentry\.io|sentry-next\.wixpress\.com|wixpress\.com|sentry\.[a-z.]+)$|^sentry[.-]/;

// "Do not reply" as mailbox names say it in the served languages, squashed (no separators).
const NO_REPLY =
  /noreply|donotreply|mailerdaemon|nepasrepondre|nepasrepondez|naoresponda|naoresponder|nonrispondere|noresponder|nocontestar|norespondas|keineantwort|nichtantworten|bitteNichtAntworten|geenantwoord|nietantwoorden|nieodpowiadaj|neodpovidat|neodpovedat|svarainte|svarikke|svarintekke|ikkesvar|alavastaa|yanitlamayin|cevaplamayin|nuraspunde|nemvalaszolj|khongtraloi|janganbalas|nevidpovidaty|neotvechat|bitte-?nicht-?antworten/i;

/** Why an address is taken as the business's; the order is the ranking. */
export type EmailBasis =
  | 'site domain'
  | 'business name domain'
  | 'structured data'
  | 'contact block'
  | 'mailto near business name'
  | 'named after the business'
  | 'free mailbox';
const BASIS_ORDER: readonly EmailBasis[] = [
  'site domain',
  'business name domain',
  'structured data',
  'contact block',
  'mailto near business name',
  'named after the business',
  'free mailbox',
];

/** One sighting of an address on a page. */
export interface EmailSighting {
  email: string;
  /** presented as the business's (not counting the domain, which ranking checks) */
  basis: 'structured data' | 'contact block' | 'mailto near business name' | 'contact page' | 'page text';
  /** in a designer's or agency's credit line */
  credit: boolean;
  /** written with bare words for "at" and "dot" ("info at shop dot de"): believed on the site's own domain only */
  spelled?: boolean;
  /** the text around it (its block), where another party may be named */
  context?: string;
}

export interface PageContext {
  /** the page is the site's contact or legal-notice page: what it lists is presented as the business's */
  contactPage?: boolean;
  /** the business's name as the upstream gave it */
  businessName?: string | null;
}

// The local words for "at" and "dot" people type without brackets ("info arroba casa punto es"); read only
// when what they spell is the site's own domain (rankSightings), since the words are ordinary words too.
const SPELLED_AT =
  'at|arroba|arrobas|arobase|arobas|chiocciola|apenstaartje|apestaartje|małpa|malpa|klammeraffe|affenschwanz|snabel-a|ät|zavináč|zavinac|kukac|krøllalfa|παπάκι|собака|собачка|アット|골뱅이|小老鼠|แอท|a còng|et|la|שטרודל|آت';
const SPELLED_DOT =
  'dot|punkt|punktum|point|punto|punt|ponto|kropka|pont|tečka|piste|nokta|τελεία|крапка|точка|ドット|점|點|点|ดอท|chấm|titik|נקודה|punct|نقطة';
const SPELLED = new RegExp(
  `(?<![\\p{L}\\p{N}._%+-])([a-z0-9][a-z0-9._+-]{0,63})\\s+(?:${SPELLED_AT})\\s+([a-z0-9][a-z0-9-]{0,62}(?:\\s+(?:${SPELLED_DOT})\\s+[a-z0-9][a-z0-9-]{0,62})+)(?![\\p{L}\\p{N}])`,
  'giu',
);
const SPELLED_DOT_SPLIT = new RegExp(`\\s+(?:${SPELLED_DOT})\\s+`, 'giu');

/** Every address on a parsed page, with where it was seen. */
export function sightEmails(page: PageDocument, html: string, context: PageContext = {}): EmailSighting[] {
  const sightings: EmailSighting[] = [];
  const plain = context.contactPage ? 'contact page' : 'page text';
  const name = context.businessName ? foldWords(context.businessName) : '';
  const blockAt = (index: number) => page.blocks[Math.min(index, page.blocks.length - 1)];
  for (const email of fromCloudflare(html)) sightings.push({ email, basis: plain, credit: false });
  for (const text of page.jsonLd) {
    for (const email of addressesIn(unescapeScriptText(text))) sightings.push({ email, basis: 'structured data', credit: false });
  }
  for (const text of page.scripts) {
    for (const email of addressesIn(unescapeScriptText(text))) sightings.push({ email, basis: plain, credit: false });
    // What a small inline script builds, folded from its syntax tree, never run; what it writes is HTML, so entities decode.
    for (const built of scriptStrings(text))
      for (const email of addressesIn(decodeEntities(built))) sightings.push({ email, basis: plain, credit: false });
  }
  // what elements carry for scripts to show: data-* behind javascript: links, an island's serialised props
  for (const carried of page.attributes) {
    const block = page.blocks[carried.block];
    for (const email of addressesIn(unescapeScriptText(carried.text)))
      sightings.push({ email, basis: block?.contact ? 'contact block' : plain, credit: false, context: block?.text });
  }
  for (const anchor of page.anchors) {
    if (!/^mailto:/i.test(anchor.href)) continue;
    const block = blockAt(anchor.block);
    // the link is in the credit when its own text sits at or after where the credit begins
    const credit = block !== undefined && block.creditAt >= 0 && block.text.lastIndexOf(anchor.text) >= block.creditAt;
    const nearName = name !== '' && block !== undefined && foldWords(block.text).includes(name);
    const basis = block?.contact ? 'contact block' : nearName ? 'mailto near business name' : plain;
    for (const email of fromMailto(anchor.href)) sightings.push({ email, basis, credit, context: block?.text });
  }
  for (const block of page.blocks) {
    const text = block.text.replace(OBFUSCATED_AT, '@').replace(OBFUSCATED_DOT, '.');
    const creditAt = block.creditAt === 0 ? 0 : block.creditAt > 0 ? creditIndex(text) : -1;
    const basis = block.contact ? 'contact block' : plain;
    for (const match of text.matchAll(EMAIL)) {
      const credit = creditAt >= 0 && (match.index ?? 0) >= creditAt;
      sightings.push({ email: match[0], basis, credit, context: block.text });
    }
    for (const match of text.matchAll(SPELLED)) {
      const email = `${match[1]}@${(match[2] ?? '').split(SPELLED_DOT_SPLIT).join('.')}`;
      sightings.push({ email, basis, credit: creditAt >= 0 && (match.index ?? 0) >= creditAt, spelled: true, context: block.text });
    }
  }
  return sightings;
}

function addressesIn(text: string): string[] {
  return [...text.matchAll(EMAIL)].map((m) => m[0]);
}

/** The business an address is weighed against: its site's host and its name. */
export interface Owner {
  siteHost: string;
  businessName?: string | null;
}

/**
 * Ranks addresses by who they belong to, from evidence: an address on the site's domain, or on a domain
 * or a mailbox named after the business, is the business's. Any other address is someone else's unless
 * the page presents it as the business's (its structured data, a contact block, a mailto beside the
 * business's name) or it is a free mailbox; and never when it sits in a credit line ("Website by Studio X,
 * hello@studio.x") or the text around it names the party its domain is named after ("catering by Fein &
 * Frisch, orders@feinfrisch.de"). Within a rank, the order of appearance is kept. The basis is the reason
 * recorded in the lead's provenance.
 */
export function rankSightings(sightings: readonly EmailSighting[], owner: Owner | string): Array<{ email: string; basis: EmailBasis }> {
  const { siteHost, businessName = null } = typeof owner === 'string' ? { siteHost: owner } : owner;
  const site = stripWww(siteHost.replace(/:\d+$/, '').replace(/\.$/, ''));
  const siteWords = letters(registrableLabel(site));
  const nameWords = letters(foldWords(businessName ?? ''));
  const best = new Map<string, EmailBasis>();
  for (const sighting of sightings) {
    const email = normaliseEmail(sighting.email);
    if (email === null || !isValidShape(email) || isJunkEmail(email)) continue;
    const [local = '', domain = ''] = email.split('@');
    const own = site !== '' && (domain === site || domain.endsWith(`.${site}`) || site.endsWith(`.${domain}`));
    const label = letters(registrableLabel(domain));
    const related = !own && label.length >= 5 && (related_(label, siteWords) || related_(label, nameWords));
    const namedLocal = letters(local).length >= 5 && (related_(letters(local), siteWords) || related_(letters(local), nameWords));
    let basis: EmailBasis | null;
    if (own) basis = 'site domain';
    else if (sighting.credit) basis = null;
    else if (related) basis = 'business name domain';
    // words for "at" and "dot" are ordinary words too: what they spell needs the business's name or a webmail domain
    else if (sighting.spelled && !namedLocal && !FREE_MAILBOXES.has(domain)) basis = null;
    else if (namesOtherParty(sighting.context ?? '', domain, businessName)) basis = null;
    else if (sighting.basis === 'structured data' || sighting.basis === 'contact block' || sighting.basis === 'mailto near business name')
      basis = sighting.basis;
    else if (namedLocal) basis = 'named after the business';
    else if (FREE_MAILBOXES.has(domain)) basis = 'free mailbox';
    else basis = null;
    if (basis === null) continue;
    const previous = best.get(email);
    if (previous === undefined || BASIS_ORDER.indexOf(basis) < BASIS_ORDER.indexOf(previous)) best.set(email, basis);
  }
  // Array.prototype.sort is stable, so each rank keeps the order of appearance
  return [...best]
    .filter(([email, basis]) => basis === 'site domain' || basis === 'business name domain' || !credited(sightings, email))
    .map(([email, basis]) => ({ email, basis }))
    .sort((a, b) => BASIS_ORDER.indexOf(a.basis) - BASIS_ORDER.indexOf(b.basis));
}

function credited(sightings: readonly EmailSighting[], email: string): boolean {
  return sightings.some((s) => s.credit && normaliseEmail(s.email) === email);
}

/** Lower case, the domain in ASCII (an IDN as punycode, as mail systems resolve it); null when it cannot be. */
export function normaliseEmail(raw: string): string | null {
  const email = raw.trim().toLowerCase();
  const at = email.lastIndexOf('@');
  if (at <= 0) return null;
  const domain = email.slice(at + 1);
  if (/^[a-z0-9.-]+$/.test(domain)) return email;
  const ascii = domainToASCII(domain);
  return ascii === '' ? null : `${email.slice(0, at)}@${ascii}`;
}

/** The label a business registers: "www.bakery.co.uk" → "bakery", "shop.bakery.de" → "bakery". */
function registrableLabel(host: string): string {
  const labels = host.replace(/^xn--/, '').split('.');
  const tld = labels.at(-1) ?? '';
  const second = labels.at(-2) ?? '';
  // co.uk, com.br, co.jp, or.at: a short second level under a country code
  const suffix = tld.length === 2 && labels.length >= 3 && /^(?:co|com|net|org|or|ne|ac|gv|gob|gov|edu|ltd|plc)$/.test(second) ? 2 : 1;
  return labels.at(-1 - suffix) ?? '';
}

function letters(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** One names the other: equal, or the longer contains the shorter (at least 5 letters). */
function related_(a: string, b: string): boolean {
  if (a.length < 5 || b.length < 5) return a !== '' && a === b;
  return a === b || a.includes(b) || b.includes(a);
}

/**
 * The text around an address names the party its domain is named after, and that party is not the
 * business: "Online bestellen über Orderly, help@orderly-blumen.io".
 */
function namesOtherParty(context: string, domain: string, businessName: string | null): boolean {
  if (context === '') return false;
  // the address itself names its domain: only the words around it count
  const text = foldWords(context.replace(EMAIL, ' ')).replace(/ /g, '');
  const name = letters(foldWords(businessName ?? ''));
  const words = registrableLabel(domain)
    .split('-')
    .filter((w) => w.length >= 4 && !FREE_MAILBOXES.has(domain));
  return words.some((w) => text.includes(w) && !name.includes(w));
}

export function isJunkEmail(email: string): boolean {
  const [local = '', domain = ''] = email.toLowerCase().split('@');
  const tld = domain.slice(domain.lastIndexOf('.') + 1);
  if (ASSET_TLDS.has(tld)) return true;
  if (PLACEHOLDER_DOMAINS.test(domain)) return true;
  if (PLACEHOLDER_LOCALS.has(local) && PLACEHOLDER_LOCAL_DOMAINS.test(domain)) return true;
  if (local === 'your' || local === 'youremail' || local === 'your.email' || local === 'yourname') return true;
  if (TRACKING_DOMAINS.test(domain)) return true;
  if (onPlatform(domain)) return true;
  // hashed local parts are the keys of error-reporting DSNs and tracking mailboxes
  if (/^[0-9a-f]{24,}$/.test(local)) return true;
  const squashed = local.replace(/[-_.]/g, '');
  return NO_REPLY.test(squashed);
}

/** The domain or one of its parents is a platform's (support.calendly.com is calendly.com's). */
function onPlatform(domain: string): boolean {
  for (let rest = domain; ;) {
    if (PLATFORM_DOMAINS.has(rest)) return true;
    const dot = rest.indexOf('.');
    if (dot === -1) return false;
    rest = rest.slice(dot + 1);
  }
}

function isValidShape(email: string): boolean {
  const [local = '', domain = ''] = email.split('@');
  return email.length <= 254 && local.length <= 64 && !local.includes('..') && !domain.includes('..') && EMAIL_EXACT.test(email);
}

/** Every recipient of a mailto link: its path, and its to, cc and bcc fields (RFC 6068). */
function fromMailto(href: string): string[] {
  const emails: string[] = [];
  for (const match of href.matchAll(/mailto:([^"'<>\s]+)/gi)) {
    const [target = '', query = ''] = (match[1] ?? '').split('?');
    const fields = [target];
    for (const pair of query.split('&')) {
      const [key = '', value = ''] = pair.split('=');
      if (/^(?:to|cc|bcc)$/i.test(key)) fields.push(value);
    }
    for (const field of fields) {
      let decoded = field;
      try {
        decoded = decodeURIComponent(field);
      } catch {
        // a stray % in the link: keep it raw, the shape check decides
      }
      for (const part of decoded.split(/[,;]/)) if (part.trim() !== '') emails.push(part.trim());
    }
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
