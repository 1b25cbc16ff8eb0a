/**
 * A small robots.txt parser following RFC 9309: groups by user-agent, Allow/Disallow with the
 * longest match winning (Allow on a tie), `*` and a trailing `$` as the only special characters.
 */
export interface RobotsRules {
  /** `path` is the URL's path plus query; `userAgent` may be a bare token or a full User-Agent header */
  isAllowed(path: string, userAgent: string): boolean;
}

interface Rule {
  allow: boolean;
  /** the normalised pattern; its length decides which rule is most specific */
  pattern: string;
}

interface Group {
  agents: string[];
  rules: Rule[];
}

export const allowAll: RobotsRules = { isAllowed: () => true };

/** RFC 9309 2.3.1.3/2.3.1.4: when robots.txt is unreachable or errors, assume complete disallow. */
export const disallowAll: RobotsRules = { isAllowed: (path) => normalisePath(path) === '/robots.txt' };

export function parseRobots(text: string): RobotsRules {
  const groups = parseGroups(text);
  return {
    isAllowed(path: string, userAgent: string): boolean {
      const target = normalisePath(path);
      if (target === '/robots.txt') return true;
      const token = agentToken(userAgent);
      // Groups naming our token replace `*` entirely; several of them are merged (RFC 9309 2.2.1).
      let matching = groups.filter((group) => group.agents.includes(token));
      if (matching.length === 0) matching = groups.filter((group) => group.agents.includes('*'));
      let best: Rule | undefined;
      for (const group of matching) {
        for (const rule of group.rules) {
          if (!matches(rule.pattern, target)) continue;
          if (!best || rule.pattern.length > best.pattern.length || (rule.pattern.length === best.pattern.length && rule.allow)) {
            best = rule;
          }
        }
      }
      return best?.allow ?? true;
    },
  };
}

function parseGroups(text: string): Group[] {
  const groups: Group[] = [];
  let current: Group | undefined;
  let collectingAgents = false;
  for (const rawLine of text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)) {
    const line = rawLine.replace(/#.*$/, '').trim();
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'user-agent') {
      // consecutive user-agent lines share one group; one after rules starts the next group
      if (!current || !collectingAgents) {
        current = { agents: [], rules: [] };
        groups.push(current);
      }
      current.agents.push(value === '*' ? '*' : agentToken(value));
      collectingAgents = true;
    } else if (key === 'allow' || key === 'disallow') {
      collectingAgents = false;
      // rules before any user-agent line belong to no group; an empty Disallow allows everything
      if (!current || value === '') continue;
      const pattern = normalisePath(value);
      current.rules.push({ allow: key === 'allow', pattern });
    } else if (key !== 'sitemap') {
      // crawl-delay and unknown keys end the list of agents but are otherwise ignored
      collectingAgents = false;
    }
  }
  return groups;
}

/** `LeadgenBot/1.0 (+https://...)` → `leadgenbot`: robots.txt names products, compared case-insensitively. */
function agentToken(userAgent: string): string {
  return (userAgent.trim().split(/[\s/]/)[0] ?? '').toLowerCase();
}

/** Percent-encoding differences (`%7e` vs `~`, raw UTF-8, `%2f` vs `%2F`) must not decide a match. */
function normalisePath(path: string): string {
  return path
    .replace(/%([0-9a-fA-F]{2})/g, (_escape, hex: string) => {
      const char = String.fromCharCode(parseInt(hex, 16));
      return /[A-Za-z0-9\-._~]/.test(char) ? char : `%${hex.toUpperCase()}`;
    })
    .replace(/[^\x21-\x7e]+/gu, (run) => {
      try {
        return encodeURIComponent(run);
      } catch {
        return run; // a lone surrogate: leave it, it simply will not match anything
      }
    });
}

/**
 * `*` matches any run, a final `$` anchors the end, anything else is a prefix match. A two-pointer
 * glob match instead of a RegExp: a hostile `/*a*a*a*a*b` must not backtrack exponentially.
 */
function matches(pattern: string, path: string): boolean {
  const glob = pattern.endsWith('$') ? pattern.slice(0, -1) : `${pattern}*`;
  let g = 0;
  let p = 0;
  let star = -1;
  let resume = 0;
  while (p < path.length) {
    if (glob[g] === '*') {
      star = g++;
      resume = p;
    } else if (g < glob.length && glob[g] === path[p]) {
      g++;
      p++;
    } else if (star >= 0) {
      g = star + 1;
      p = ++resume;
    } else {
      return false;
    }
  }
  while (glob[g] === '*') g++;
  return g === glob.length;
}
