// The ways a small business's site shows an address, someone else's address, and its social profiles,
// each as a visitor's browser renders it. Written from the builders' and plugins' own markup (Cloudflare's
// email protection, Astro islands, theme "obfuscate email" helpers, Facebook's Page Plugin), not from
// what the crawler reads.
import type { Locale } from './locales';

/** Cloudflare's email protection: the first byte is the key, each following byte the character XOR the key. */
export function cfEncode(email: string, key = 0x5a): string {
  const hex = (n: number) => n.toString(16).padStart(2, '0');
  return hex(key) + [...email].map((c) => hex(c.charCodeAt(0) ^ key)).join('');
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
const split = (email: string) => {
  const at = email.lastIndexOf('@');
  return { local: email.slice(0, at), domain: email.slice(at + 1) };
};

export type Presentation =
  | 'mailto'
  | 'text'
  | 'cfemail'
  | 'cfhash'
  | 'entities'
  | 'data-js'
  | 'data-onclick'
  | 'island-props'
  | 'words'
  | 'brackets'
  | 'script-entities'
  | 'split-spans'
  | 'json-ld'
  | 'mailto-cc'
  | 'idn';

export const PRESENTATIONS: Presentation[] = [
  'mailto',
  'cfemail',
  'data-js',
  'island-props',
  'words',
  'text',
  'script-entities',
  'mailto-cc',
  'idn',
  'entities',
  'cfhash',
  'data-onclick',
  'brackets',
  'split-spans',
  'json-ld',
];

/** The HTML of one business address as the site shows it; `second` is the cc of a mailto-cc. */
export function present(kind: Presentation, email: string, L: Locale, second?: string): string {
  const { local, domain } = split(email);
  const [label, ...tld] = domain.split('.');
  switch (kind) {
    case 'mailto':
    case 'idn':
      return `<p>${L.emailLabel}: <a href="mailto:${email}">${email}</a></p>`;
    case 'text':
      return `<p>${L.emailLabel}: ${email}</p>`;
    case 'cfemail':
      return `<p>${L.emailLabel}: <a href="/cdn-cgi/l/email-protection" class="__cf_email__" data-cfemail="${cfEncode(email)}">[email&#160;protected]</a></p>
<script data-cfasync="false" src="/cdn-cgi/scripts/5c5dd728/cloudflare-static/email-decode.min.js"></script>`;
    case 'cfhash':
      return `<p><a href="/cdn-cgi/l/email-protection#${cfEncode(email, 0x3c)}"><i class="fa fa-envelope"></i> ${L.writeUs}</a></p>`;
    case 'entities':
      return `<p>${L.emailLabel}: ${local}&#64;${label}&#46;${tld.join('&#46;')}</p>`;
    case 'data-js':
      // a theme's "protect email" helper: the parts wait in data attributes until a click builds the link
      return `<p><a href="javascript:void(0)" class="js-mail" data-user="${local}" data-domain="${domain}">${L.writeUs}</a></p>
<script>document.querySelectorAll('.js-mail').forEach(function (a) { a.addEventListener('click', function () { location.href = 'mailto:' + a.dataset.user + '@' + a.dataset.domain; }); a.textContent = a.dataset.user + '@' + a.dataset.domain; });</script>`;
    case 'data-onclick':
      return `<p><span class="mail-obf" data-name="${local}" data-host="${domain}" onclick="window.location.href='mailto:'+this.dataset.name+'@'+this.dataset.host">&#9993; ${L.emailLabel}</span></p>`;
    case 'island-props': {
      // Astro serialises a hydrated component's props as JSON in an attribute: [0, value] per prop
      const props = JSON.stringify({ email: [0, email], label: [0, L.writeUs] });
      return `<astro-island uid="Z1nXq2" component-url="/_astro/ContactCard.8d1f2a.js" component-export="default" renderer-url="/_astro/client.4c1b.js" props="${esc(props)}" ssr client="visible"><div class="contact-card"><button type="button">${L.writeUs}</button></div></astro-island>`;
    }
    case 'words':
      return `<p>${L.emailLabel}: ${local} ${L.at} ${label} ${L.dot} ${tld.join(` ${L.dot} `)}</p>`;
    case 'brackets':
      return `<p>${L.emailLabel}: ${local} [at] ${label} [dot] ${tld.join(' [dot] ')}</p>`;
    case 'script-entities':
      return `<p>${L.emailLabel}: <script type="text/javascript">document.write('<a href="mailto:' + '${local}' + '&#64;' + '${domain}' + '">' + '${local}' + '&#64;' + '${domain}' + '</a>');</script></p>`;
    case 'split-spans':
      return `<p>${L.emailLabel}: <span class="u">${local}</span><span class="a">@</span><span class="d">${domain}</span></p>`;
    case 'json-ld':
      return `<script type="application/ld+json">{"@context":"https://schema.org","@type":"LocalBusiness","name":"${L.heading}","email":"mailto:${email}"}</script><p>${L.writeUs}: <a href="mailto:${email}">${L.emailLabel}</a></p>`;
    case 'mailto-cc':
      return `<p><a href="mailto:${email}?cc=${second ?? ''}&amp;subject=${encodeURIComponent(L.writeUs)}">${L.writeUs}</a></p>`;
  }
}

export type Junk = 'credit' | 'caterer' | 'order-platform' | 'administrator' | 'booking-support' | 'no-reply' | 'none';
export const JUNKS: Junk[] = ['credit', 'caterer', 'none', 'order-platform', 'no-reply', 'administrator', 'booking-support'];

/** Someone else's address, written the way the site mentions them; `slug` makes each other party distinct. */
export function junkHtml(kind: Junk, L: Locale, slug: string): { html: string; footer: boolean } {
  const fill = (template: string, name: string) => template.replace('{name}', name);
  switch (kind) {
    case 'credit':
      return {
        html: `<div class="site-info">© 2025 · ${L.credit} <a href="https://pixelhaus-${slug}.${L.tld}">Pixelhaus ${slug}</a> · <a href="mailto:studio@pixelhaus-${slug}.${L.tld}">studio@pixelhaus-${slug}.${L.tld}</a></div>`,
        footer: true,
      };
    case 'caterer':
      return {
        html: `<p>${fill(L.caterer, `Fein & Frisch ${slug}`)} <a href="mailto:bestellung@feinfrisch-${slug}.com">bestellung@feinfrisch-${slug}.com</a></p>`,
        footer: false,
      };
    case 'order-platform':
      return { html: `<p>${fill(L.orderVia, `Orderly ${slug}`)} help@orderly-${slug}.io</p>`, footer: false };
    case 'administrator':
      return { html: `<p>${fill(L.administrator, `Nordvest Pension ${slug}`)} service@nordvest-pension-${slug}.com</p>`, footer: false };
    case 'booking-support':
      return {
        html: `<div class="booking-widget"><iframe src="https://book.termin-${slug}.app/widget" title="booking"></iframe><p>${L.bookingHelp} <a href="mailto:support@termin-${slug}.app">support@termin-${slug}.app</a></p></div>`,
        footer: false,
      };
    case 'no-reply':
      return { html: `<p class="small">${L.noticeNoReply} ${L.noReply}@mailer-${slug}.net</p>`, footer: false };
    case 'none':
      return { html: '', footer: false };
  }
}

export type ProfileKind = 'direct' | 'l-facebook' | 'google-url' | 'page-plugin' | 'share-and-profile' | 'app-share' | 'linkedin' | 'none';
export const PROFILE_KINDS: ProfileKind[] = [
  'direct',
  'page-plugin',
  'l-facebook',
  'none',
  'app-share',
  'google-url',
  'linkedin',
  'share-and-profile',
];

export interface Profiles {
  facebook: string | null;
  instagram: string | null;
  linkedin: string | null;
}

/** The footer's profile links and what a person clicking them would call the business's pages. */
export function profileHtml(kind: ProfileKind, handle: string, pageUrl: string): { html: string; truth: Profiles } {
  const fb = `https://www.facebook.com/${handle}`;
  const ig = `https://www.instagram.com/${handle.toLowerCase()}`;
  const li = `https://www.linkedin.com/company/${handle.toLowerCase()}`;
  const none: Profiles = { facebook: null, instagram: null, linkedin: null };
  switch (kind) {
    case 'direct':
      return {
        html: `<a href="${fb}/" target="_blank">Facebook</a> <a href="${ig}/">Instagram</a>`,
        truth: { ...none, facebook: fb, instagram: ig },
      };
    case 'l-facebook':
      // links copied out of Facebook's own pages keep its outbound wrapper
      return {
        html: `<a href="https://l.facebook.com/l.php?u=${encodeURIComponent(`${ig}/?hl=en`)}&amp;h=AT0x9fQ">Instagram</a> <a href="${fb}">Facebook</a>`,
        truth: { ...none, facebook: fb, instagram: ig },
      };
    case 'google-url':
      return {
        html: `<a href="https://www.google.com/url?q=${encodeURIComponent(fb)}&amp;sa=D&amp;source=editors&amp;ust=1716&amp;usg=AOvVaw3">Facebook</a>`,
        truth: { ...none, facebook: fb },
      };
    case 'page-plugin':
      return {
        html: `<div class="fb-page" data-href="${fb}" data-tabs="timeline" data-width="340"></div><iframe src="https://www.facebook.com/plugins/page.php?href=${encodeURIComponent(fb)}&amp;tabs=timeline&amp;width=340&amp;height=500" width="340" height="500" style="border:none"></iframe>`,
        truth: { ...none, facebook: fb },
      };
    case 'share-and-profile':
      return {
        html: `<div class="share">Share: <a href="https://www.facebook.com/sharer/sharer.php?u=${encodeURIComponent(pageUrl)}">Facebook</a> <a href="https://www.linkedin.com/sharing/share-offsite/?url=${encodeURIComponent(pageUrl)}">LinkedIn</a></div><p>Follow: <a href="${ig}">@${handle.toLowerCase()}</a></p>`,
        truth: { ...none, instagram: ig },
      };
    case 'app-share':
      // profiles shared from the apps carry tracking parameters
      return {
        html: `<a href="${ig}?igsh=MWQ1ZGUxMzBkMnk4Nw%3D%3D&amp;utm_source=qr">Instagram</a> <a href="https://m.facebook.com/${handle}?mibextid=LQQJ4d">Facebook</a>`,
        truth: { ...none, facebook: fb, instagram: ig },
      };
    case 'linkedin':
      return {
        html: `<a href="https://linkedin.com/company/${handle.toLowerCase()}/about/">LinkedIn</a>`,
        truth: { ...none, linkedin: li },
      };
    case 'none':
      return { html: '', truth: none };
  }
}
