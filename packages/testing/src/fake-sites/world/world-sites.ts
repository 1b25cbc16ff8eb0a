// The world corpus: four small businesses in each of 33 countries (132 sites) on today's builders, and
// parked or expired domains. Each site's truth is what a careful person reading its home, contact and
// about/legal pages writes down: the business's own addresses (someone else's never), its own profiles,
// and whether the domain is parked at all. The traits (where the address is, how it is shown, whose other
// addresses stand near it, how profiles are linked) rotate with different strides, so the tuning half and
// the holdout half (every other site) meet the same kinds of difficulty in different combinations,
// languages and builders.
import { domainToASCII } from 'node:url';
import { type CorpusSite } from '../unseen-sites';
import { WORLD_BUILDERS, wrapWorld, type WorldBuilder } from './builders';
import { LOCALES, type Locale } from './locales';
import { JUNKS, junkHtml, present, PRESENTATIONS, PROFILE_KINDS, profileHtml, type Presentation } from './presentations';
import { PARKED_SITES } from './parked-sites';

export interface WorldSite extends CorpusSite {
  country: string;
  half: 'tuning' | 'holdout';
  websiteStatus: 'ok' | 'parked';
  /** what makes the site hard, for the scorer's report */
  traits: string[];
}

type Placement =
  | 'contact'
  | 'legal'
  | 'home-footer'
  | 'contact-alt'
  | 'about'
  | 'opaque-slug'
  | 'refresh-root'
  | 'iframe'
  | 'icon-link'
  | 'two-pages'
  | 'form-only';
const PLACEMENTS: Placement[] = [
  'contact',
  'contact-alt',
  'legal',
  'refresh-root',
  'home-footer',
  'iframe',
  'opaque-slug',
  'about',
  'icon-link',
  'two-pages',
  'form-only',
];
const LOCAL_PARTS = ['info', 'hello', 'office', 'post', 'mail', 'team', 'shop'];

const WORDPRESS = new Set<WorldBuilder>(['elementor', 'divi', 'astra']);
const MAIL_ICON = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M2 4h20v16H2z"/></svg>';

/** A name's letters as an internationalised host label ("Bäckerei Sommer" → "bäckerei-sommer"), or null when it is ASCII or not Latin. */
function unicodeLabel(name: string): string | null {
  const label = name
    .toLowerCase()
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-|-$/g, '');
  if (/^[a-z0-9-]+$/.test(label) || !/^[\p{Script=Latin}0-9-]+$/u.test(label)) return null;
  return label;
}

function buildSite(L: Locale, k: number, i: number): WorldSite {
  const [businessName, slug] = L.names[k] as [string, string];
  const builder = WORLD_BUILDERS[(i * 7) % WORLD_BUILDERS.length] as WorldBuilder;
  const placement = PLACEMENTS[i % PLACEMENTS.length] as Placement;
  let presentation = PRESENTATIONS[(i * 7 + 3) % PRESENTATIONS.length] as Presentation;
  const junk = JUNKS[(i * 3 + 1) % JUNKS.length] ?? 'none';
  const profileKind = PROFILE_KINDS[(i * 5 + 2) % PROFILE_KINDS.length] ?? 'none';

  let host = `${slug}.${L.tld}`;
  let shownDomain = host;
  const idn = unicodeLabel(businessName);
  if (presentation === 'idn') {
    if (idn === null) presentation = 'mailto';
    else {
      shownDomain = `${idn}.${L.tld}`;
      host = domainToASCII(shownDomain);
    }
  }
  // most businesses write from their own domain; some from a free mailbox or a second domain of theirs
  const variant = i % 9;
  const local = LOCAL_PARTS[i % LOCAL_PARTS.length] as string;
  const mailDomain = variant === 7 ? L.freemail : variant === 8 ? `${slug.replace(/-/g, '')}.com` : shownDomain;
  const mailLocal = variant === 7 ? slug.replace(/-/g, '.') : local;
  const email = `${mailLocal}@${mailDomain}`;
  const second = variant === 7 ? `${slug.replace(/-/g, '')}.bookings@${L.freemail}` : `bookings@${mailDomain}`;

  const prefix = placement === 'refresh-root' ? `/${L.lang.slice(0, 2)}` : '';
  const contactPath =
    placement === 'opaque-slug'
      ? WORDPRESS.has(builder)
        ? '/?page_id=27'
        : '/page-27/'
      : placement === 'contact-alt'
        ? L.contactAlt[1]
        : L.contact[1];
  const contactText = placement === 'contact-alt' ? L.contactAlt[0] : L.contact[0];
  const legal = L.legal ?? L.about;
  const paths = { home: `${prefix}/`, contact: prefix + contactPath, about: prefix + L.about[1], legal: prefix + legal[1] };

  const contactLink =
    placement === 'icon-link'
      ? `<a href="${paths.contact}" class="header-icon" aria-label="${contactText}">${MAIL_ICON}</a>`
      : `<a href="${paths.contact}">${contactText}</a>`;
  const nav = `<nav class="main-navigation"><a href="${paths.home}">${L.heading}</a> <a href="${paths.about}">${L.about[0]}</a> ${contactLink}</nav>`;
  const legalLink = `<a href="${paths.legal}">${legal[0]}</a>`;

  const emails = placement === 'form-only' ? [] : presentation === 'mailto-cc' ? [email, second] : [email];
  const address = placement === 'form-only' ? '' : present(presentation, email, L, second);
  const form = `<form class="wpcf7-form" action="${paths.contact}" method="post"><label>${L.emailLabel} <input type="email" name="your-email" placeholder="name@example.com"></label><textarea name="message"></textarea><button>${L.writeUs}</button></form>`;
  const other = junkHtml(junk, L, slug.slice(0, 6));
  const profiles = profileHtml(profileKind, slug.replace(/-/g, ''), `https://${host}/`);
  const footer = `${placement === 'home-footer' ? address : ''}${profiles.html}<p>© 2025 ${businessName} · ${legalLink}</p>${other.footer ? other.html : ''}`;
  const page = (body: string) => wrapWorld(builder, L.lang, businessName, `${nav}${body}`, footer);
  const holder = placement === 'legal' ? 'legal' : placement === 'about' ? 'about' : placement === 'home-footer' ? 'home' : 'contact';
  // someone else's address sits on the page that holds the business's, where it misleads most
  const otherHere = (where: string) => (!other.footer && where === holder ? other.html : '');

  const pages: Record<string, string> = {};
  pages[paths.home] = page(`<h1>${businessName}</h1><p>${L.heading}!</p>${otherHere('home')}`);
  const contactBody =
    placement === 'iframe'
      ? `<h2>${contactText}</h2>${form}<iframe src="${prefix}/contact-embed.html" title="${contactText}" width="100%" height="200"></iframe>`
      : `<h2>${contactText}</h2>${holder === 'contact' ? address : ''}${form}${otherHere('contact')}`;
  pages[paths.contact] = page(contactBody);
  if (placement === 'iframe') pages[`${prefix}/contact-embed.html`] = wrapWorld('plain', L.lang, businessName, address, '');
  pages[paths.about] = page(`<h2>${L.about[0]}</h2><p>${businessName}.</p>${holder === 'about' ? address : ''}${otherHere('about')}`);
  const legalExtra = placement === 'two-pages' ? present('text', second, L) : '';
  if (paths.legal !== paths.about)
    pages[paths.legal] = page(
      `<h2>${legal[0]}</h2><p>${businessName}</p>${holder === 'legal' ? address : ''}${legalExtra}${otherHere('legal')}`,
    );
  else if (legalExtra) pages[paths.about] += legalExtra;
  if (placement === 'refresh-root')
    pages['/'] =
      `<!DOCTYPE html><html><head><meta http-equiv="refresh" content="0; URL='${paths.home}'"><title>${businessName}</title></head><body></body></html>`;
  if (placement === 'two-pages') emails.push(second);

  return {
    id: `${L.cc.toLowerCase()}-${slug}`,
    host,
    builder: builder as CorpusSite['builder'],
    pages,
    businessName,
    emails: [...new Set(emails)],
    profiles: profiles.truth,
    country: L.cc,
    half: i % 2 === 0 ? 'tuning' : 'holdout',
    websiteStatus: 'ok',
    traits: [
      builder,
      placement,
      presentation,
      junk,
      profileKind,
      variant === 7 ? 'freemail' : variant === 8 ? 'second-domain' : 'own-domain',
    ],
  };
}

export const WORLD_SITES: WorldSite[] = [
  ...LOCALES.flatMap((L, c) => L.names.map((_, k) => buildSite(L, k, c * 4 + k))),
  ...PARKED_SITES.map((parked, n): WorldSite => ({
    ...parked,
    emails: [],
    profiles: { facebook: null, instagram: null, linkedin: null },
    half: n % 2 === 0 ? 'tuning' : 'holdout',
    websiteStatus: 'parked',
    traits: ['parked'],
  })),
];
