import { decodeEntities, unescapeScriptText } from './html';

export interface SocialProfiles {
  facebook: string | null;
  instagram: string | null;
  linkedin: string | null;
}

// Absolute or protocol-relative links, plus bare `www.` mentions in text and JSON-LD `sameAs`.
const CANDIDATE =
  /(?:https?:)?\/\/(?:[a-z0-9-]+\.)*(?:facebook|fb|instagram|linkedin)\.com(?::\d+)?(?:\/[^\s"'<>\\`()]*)?|(?<![\w./-])www\.(?:facebook|instagram|linkedin)\.com\/[^\s"'<>\\`()]*/gi;

// First path segments that are share buttons, pixels, plugins or site features rather than pages.
const FACEBOOK_NOT_PROFILE = new Set([
  'sharer',
  'sharer.php',
  'share',
  'share.php',
  'dialog',
  'plugins',
  'tr',
  'login',
  'login.php',
  'l.php',
  'home.php',
  'hashtag',
  'help',
  'policies',
  'privacy',
  'legal',
  'ads',
  'events',
  'groups',
  'watch',
  'photo',
  'photo.php',
  'photos',
  'video.php',
  'story.php',
  'permalink.php',
  'search',
  'marketplace',
  'gaming',
  'settings',
  'messages',
  'notifications',
  'bookmarks',
  'business',
  'pages',
  'people',
  'v2.0',
  'recover',
  'reg',
  'r.php',
  'connect',
  'privacy_policy',
]);
const INSTAGRAM_NOT_PROFILE = new Set([
  'p',
  'reel',
  'reels',
  'tv',
  'explore',
  'stories',
  'accounts',
  'about',
  'legal',
  'developer',
  'direct',
  'web',
  'emails',
  'challenge',
  'privacy',
  'terms',
  'share',
  's',
  'oauth',
  'embed.js',
]);

// An XML namespace declaration (xmlns:fb="http://www.facebook.com/2008/fbml") names a vocabulary, not a page.
const NAMESPACE_ATTRIBUTE = /\bxmlns(?::[\w-]+)?\s*=\s*(?:"[^"]*"|'[^']*')/gi;

// Handles that site builders' and themes' templates link to until the owner replaces them, and the
// placeholders of hand-made templates: the builder's or a sample account, never the business's.
const TEMPLATE_HANDLES = new Set([
  'wix',
  'wixcom',
  'squarespace',
  'shopify',
  'webflow',
  'wordpress',
  'wordpressdotcom',
  'elementor',
  'elegantthemes',
  'divi',
  'godaddy',
  'weebly',
  'jimdo',
  'strato',
  'ionos',
  'ionos.de',
  '1und1',
  'hostinger',
  'themeforest',
  'envato',
  'themeisle',
  'astrawp',
  'generatepress',
  'oceanwp',
  'bootstrapmade',
  'templatemonster',
  'zyro',
  'carrd',
  'site123',
  'duda',
  'ovh',
  'yourpage',
  'your-page',
  'yourcompany',
  'your.company',
  'yourbusiness',
  'username',
  'yourusername',
  'your_username',
  'yourhandle',
  'yourname',
  'youraccount',
  'example',
  'company',
  'page',
  'profile',
  'facebook',
  'instagram',
  'linkedin',
  'meta',
]);

/** The first facebook, instagram and linkedin profile a page links to, normalised; share buttons are not profiles. */
export function extractSocialProfiles(html: string, baseUrl: string): SocialProfiles {
  const found = findSocialProfiles(html, baseUrl);
  return { facebook: found.facebook?.url ?? null, instagram: found.instagram?.url ?? null, linkedin: found.linkedin?.url ?? null };
}

export type ProfileReason = 'linked from the site' | 'unwrapped redirect link' | 'Page Plugin';
export type ProfileFinding = { url: string; reason: ProfileReason } | null;

// Links that pass through another site on their way to the profile: Facebook's outbound link shim
// (l.facebook.com/l.php?u=), Google's redirect (google.com/url?q=), and Facebook's Page Plugin, whose
// `href` parameter is the page it shows.
const WRAPPED =
  /(?:https?:)?\/\/(?:l|lm|www|m)\.facebook\.com\/(?:l\.php\?(?:[^"'\s<>]*?&)?u=|plugins\/(?:page|like|likebox|follow)\.php\?(?:[^"'\s<>]*?&)?href=)([^&"'\s<>]+)|(?:https?:)?\/\/(?:www\.)?google\.[a-z.]+\/url\?(?:[^"'\s<>]*?&)?(?:q|url)=([^&"'\s<>]+)/gi;

/** Each network's first profile on the page, with how it was read. */
export function findSocialProfiles(html: string, baseUrl: string): Record<keyof SocialProfiles, ProfileFinding> {
  const profiles: Record<keyof SocialProfiles, ProfileFinding> = { facebook: null, instagram: null, linkedin: null };
  const decoded = decodeEntities(unescapeScriptText(html.replace(NAMESPACE_ATTRIBUTE, '')));
  // the wrapped target replaces its wrapper, where it stood, so the page's order is kept
  const source = decoded.replace(WRAPPED, (whole: string, fbTarget?: string, googleTarget?: string) => {
    try {
      const target = decodeURIComponent(fbTarget ?? googleTarget ?? '');
      const reason = /plugins\//i.test(whole) ? 'PLUGIN' : 'UNWRAPPED';
      return /^https?:\/\//i.test(target) ? ` ${reason}${target} ` : ' ';
    } catch {
      return ' ';
    }
  });
  for (const match of source.matchAll(CANDIDATE)) {
    let url: URL;
    try {
      const raw = match[0].replace(/[.,;:!?]+$/, '');
      url = new URL(raw.startsWith('www.') ? `https://${raw}` : raw, baseUrl);
    } catch {
      continue;
    }
    const before = source.slice(Math.max(0, (match.index ?? 0) - 9), match.index ?? 0);
    const reason: ProfileReason = before.endsWith('PLUGIN')
      ? 'Page Plugin'
      : before.endsWith('UNWRAPPED')
        ? 'unwrapped redirect link'
        : 'linked from the site';
    const found = {
      facebook: notTemplate(facebookProfile(url)),
      instagram: notTemplate(instagramProfile(url)),
      linkedin: notTemplate(linkedinProfile(url)),
    };
    for (const network of ['facebook', 'instagram', 'linkedin'] as const) {
      const profile = found[network];
      if (profiles[network] === null && profile !== null) profiles[network] = { url: profile, reason };
    }
    if (profiles.facebook && profiles.instagram && profiles.linkedin) break;
  }
  return profiles;
}

function notTemplate(profile: string | null): string | null {
  if (profile === null) return null;
  const handle = profile.replace(/^https:\/\/www\.[a-z]+\.com\/(?:company\/|in\/)?/, '').toLowerCase();
  return TEMPLATE_HANDLES.has(handle) ? null : profile;
}

function segments(url: URL): string[] {
  return url.pathname.split('/').filter((segment) => segment !== '');
}

function hostIs(url: URL, domain: string, subdomains: RegExp): boolean {
  const host = url.hostname.toLowerCase();
  return host === domain || (host.endsWith(`.${domain}`) && subdomains.test(host.slice(0, -domain.length - 1)));
}

// www, mobile and locale hosts serve the same pages; developers., graph., connect. and the like do not
const FACEBOOK_HOSTS = /^(?:www|m|web|mobile|touch|mbasic|[a-z]{2}-[a-z]{2}|[a-z]{2})$/;

function facebookProfile(url: URL): string | null {
  if (!hostIs(url, 'facebook.com', FACEBOOK_HOSTS) && !hostIs(url, 'fb.com', /^www$/)) return null;
  const path = segments(url);
  let first = path[0];
  if (first === 'pg') first = path[1]; // old page URLs: /pg/<page>/about
  if (!first) return null;
  if (first === 'profile.php') {
    // the only profile URL whose identity lives in the query string
    const id = url.searchParams.get('id');
    return id && /^\d+$/.test(id) ? `https://www.facebook.com/profile.php?id=${id}` : null;
  }
  if (first === 'pages' && path[1] && /^\d+$/.test(path[2] ?? '')) {
    // pre-2016 page URLs: /pages/<name>/<numeric id>
    return `https://www.facebook.com/pages/${path[1]}/${path[2]}`;
  }
  if (FACEBOOK_NOT_PROFILE.has(first.toLowerCase()) || first.endsWith('.php')) return null;
  return /^[\w.-]{2,}$/.test(first) ? `https://www.facebook.com/${first}` : null;
}

function instagramProfile(url: URL): string | null {
  if (!hostIs(url, 'instagram.com', /^(?:www|m)$/)) return null;
  const first = segments(url)[0];
  if (!first || INSTAGRAM_NOT_PROFILE.has(first.toLowerCase())) return null;
  return /^[\w.]{1,30}$/.test(first) ? `https://www.instagram.com/${first}` : null;
}

function linkedinProfile(url: URL): string | null {
  if (!hostIs(url, 'linkedin.com', /^(?:www|[a-z]{2})$/)) return null;
  const [kind, name] = segments(url);
  if ((kind !== 'company' && kind !== 'in') || !name) return null;
  return /^[^\s/?#]+$/.test(name) ? `https://www.linkedin.com/${kind}/${name}` : null;
}
