import robotsParser from 'robots-parser';

/**
 * robots.txt rules, read by the kept `robots-parser` (RFC 9309: groups by product token, Allow and
 * Disallow with the longest match winning and Allow on a tie, `*` and a trailing `$`). What is ours:
 * the fallbacks for an unavailable or unreachable robots.txt, and robots.txt itself always allowed.
 */
export interface RobotsRules {
  /** `path` is the URL's path plus query; `userAgent` may be a bare token or a full User-Agent header */
  isAllowed(path: string, userAgent: string): boolean;
}

export const allowAll: RobotsRules = { isAllowed: () => true };

/** RFC 9309 2.3.1.3/2.3.1.4: when robots.txt is unreachable or errors, assume complete disallow. */
export const disallowAll: RobotsRules = { isAllowed: (path) => path.split('?')[0] === '/robots.txt' };

// The rules apply to one origin; the parser wants absolute URLs, so any fixed origin serves.
const ORIGIN = 'http://robots.invalid';

/**
 * The parser compares `%7E` and `~` as different; RFC 9309 2.2.2 says they are the same. Decoding
 * escapes of unreserved characters on both sides keeps `Disallow: /%7Ejoe/` covering `/~joe/`.
 */
function decodeUnreserved(text: string): string {
  return text.replace(/%([0-9a-fA-F]{2})/g, (escape, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(char) ? char : escape.toUpperCase();
  });
}

export function parseRobots(text: string): RobotsRules {
  const robots = robotsParser(`${ORIGIN}/robots.txt`, decodeUnreserved(text));
  return {
    isAllowed(path: string, userAgent: string): boolean {
      const target = decodeUnreserved(path.startsWith('/') ? path : `/${path}`);
      if (target.split('?')[0] === '/robots.txt') return true;
      // undefined only for another origin, which cannot happen here: treat it as disallowed
      return robots.isAllowed(`${ORIGIN}${target}`, agentToken(userAgent)) ?? false;
    },
  };
}

/** `LeadgenBot/1.0 (+https://...)` → `LeadgenBot`: robots.txt names products. */
function agentToken(userAgent: string): string {
  return userAgent.trim().split(/[\s/]/)[0] ?? '';
}
