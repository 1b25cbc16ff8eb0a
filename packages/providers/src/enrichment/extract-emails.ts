import { creditIndex, foldWords, type PageDocument, stripWww, unescapeScriptText } from './html';
import { scriptStrings } from './script-strings';

// The lookbehind stops a match from starting inside a longer token (`%20info@...`, `a.b@...`).
const EMAIL =
  /(?<![a-z0-9._%+-])([a-z0-9](?:[a-z0-9._+-]{0,62}[a-z0-9_+-])?)@((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24})(?![a-z0-9-])/gi;

const EMAIL_EXACT = new RegExp(`^${EMAIL.source}$`, 'i');

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

const ROLE_LOCALS = new Set([
  'info',
  'contact',
  'hello',
  'hallo',
  'hi',
  'office',
  'kontakt',
  'mail',
  'email',
  'enquiries',
  'enquiry',
  'inquiries',
  'inquiry',
  'sales',
  'service',
  'support',
  'team',
  'booking',
  'bookings',
  'reservations',
  'orders',
  'shop',
  'store',
  'bonjour',
  'ciao',
  'hola',
]);

/** Why an address is believed to be the business's; the order is the ranking. */
export type EmailBasis =
  'site domain' | 'structured data' | 'contact block' | 'mailto near business name' | 'contact page' | 'role address' | 'page text';
const BASIS_ORDER: readonly EmailBasis[] = [
  'site domain',
  'structured data',
  'contact block',
  'mailto near business name',
  'contact page',
  'role address',
  'page text',
];

/** One sighting of an address on a page. */
export interface EmailSighting {
  email: string;
  /** presented as the business's (not counting the domain, which ranking checks) */
  basis: 'structured data' | 'contact block' | 'mailto near business name' | 'contact page' | 'page text';
  /** in a designer's or agency's credit line */
  credit: boolean;
}

export interface PageContext {
  /** the page is the site's contact or legal-notice page: what it lists is presented as the business's */
  contactPage?: boolean;
  /** the business's name as the upstream gave it */
  businessName?: string | null;
}

/** Every address on a parsed page, with where it was seen. */
export function sightEmails(page: PageDocument, html: string, context: PageContext = {}): EmailSighting[] {
  const sightings: EmailSighting[] = [];
  const plain = context.contactPage ? 'contact page' : 'page text';
  const name = context.businessName ? foldWords(context.businessName) : '';
  for (const email of fromCloudflare(html)) sightings.push({ email, basis: plain, credit: false });
  for (const text of page.jsonLd) {
    for (const email of addressesIn(unescapeScriptText(text))) sightings.push({ email, basis: 'structured data', credit: false });
  }
  for (const text of page.scripts) {
    for (const email of addressesIn(unescapeScriptText(text))) sightings.push({ email, basis: plain, credit: false });
    // What a small inline script builds, folded from its syntax tree, never run.
    for (const built of scriptStrings(text)) for (const email of addressesIn(built)) sightings.push({ email, basis: plain, credit: false });
  }
  for (const anchor of page.anchors) {
    if (!/^mailto:/i.test(anchor.href)) continue;
    const block = page.blocks[anchor.block];
    // the link is in the credit when its own text sits at or after where the credit begins
    const credit = block !== undefined && block.creditAt >= 0 && block.text.lastIndexOf(anchor.text) >= block.creditAt;
    const nearName = name !== '' && block !== undefined && foldWords(block.text).includes(name);
    const basis = block?.contact ? 'contact block' : nearName ? 'mailto near business name' : plain;
    for (const email of fromMailto(anchor.href)) sightings.push({ email, basis, credit });
  }
  for (const block of page.blocks) {
    const text = block.text.replace(OBFUSCATED_AT, '@').replace(OBFUSCATED_DOT, '.');
    const creditAt = block.creditAt === 0 ? 0 : block.creditAt > 0 ? creditIndex(text) : -1;
    for (const match of text.matchAll(EMAIL)) {
      const credit = creditAt >= 0 && (match.index ?? 0) >= creditAt;
      sightings.push({ email: match[0], basis: block.contact ? 'contact block' : plain, credit });
    }
  }
  return sightings;
}

function addressesIn(text: string): string[] {
  return [...text.matchAll(EMAIL)].map((m) => m[0]);
}

/**
 * Ranks addresses by who they belong to. An address seen in a credit line ("Website by Studio X,
 * hello@studio.x") is the designer's: it is dropped wherever else it appears, unless it is on the
 * site's own domain. Within a rank, the order of appearance is kept.
 */
export function rankSightings(sightings: readonly EmailSighting[], siteHost: string): Array<{ email: string; basis: EmailBasis }> {
  const site = stripWww(siteHost.replace(/:\d+$/, '').replace(/\.$/, ''));
  const best = new Map<string, EmailBasis>();
  const credited = new Set<string>();
  for (const sighting of sightings) {
    const email = sighting.email.trim().toLowerCase();
    if (!isValidShape(email) || isJunkEmail(email)) continue;
    const [local = '', domain = ''] = email.split('@');
    const own = site !== '' && (domain === site || domain.endsWith(`.${site}`) || site.endsWith(`.${domain}`));
    if (sighting.credit && !own) credited.add(email);
    let basis: EmailBasis = own ? 'site domain' : sighting.basis;
    if (basis === 'page text' && ROLE_LOCALS.has(local)) basis = 'role address';
    const previous = best.get(email);
    if (previous === undefined || BASIS_ORDER.indexOf(basis) < BASIS_ORDER.indexOf(previous)) best.set(email, basis);
  }
  // Array.prototype.sort is stable, so each rank keeps the order of appearance
  return [...best]
    .filter(([email]) => !credited.has(email))
    .map(([email, basis]) => ({ email, basis }))
    .sort((a, b) => BASIS_ORDER.indexOf(a.basis) - BASIS_ORDER.indexOf(b.basis));
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
  return /noreply|donotreply|mailerdaemon/.test(squashed);
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

function fromMailto(href: string): string[] {
  const emails: string[] = [];
  for (const match of href.matchAll(/mailto:([^"'<>\s]+)/gi)) {
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
