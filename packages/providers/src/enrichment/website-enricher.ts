import { metrics } from '@leadgen/ops';
import { promises as dns } from 'dns';
import { signalUntil } from '../abortable-waits';
import { isForbiddenAddress } from '@leadgen/network-guard';
import { type EmailBasis, type EmailSighting, rankSightings, sightEmails } from './extract-emails';
import { extractSocialProfiles, type SocialProfiles } from './extract-social';
import { findContactPages, isSameSite, type PageKind, parsePage } from './html';
import { abortableLimit, type AbortableLimit, KeyedLimiter } from './concurrency-limits';
import { allowAll, disallowAll, parseRobots, type RobotsRules } from './robots';
import {
  AgentPool,
  FetchError,
  safeFetch,
  type FetchedResponse,
  type LookupFn,
  type NetworkPolicy,
  type SafeFetchOptions,
} from '@leadgen/network-guard';

export interface EnrichmentOptions {
  /** default false in production; tests set true to reach local fake sites */
  allowPrivateNetworks: boolean;
  /** per host: the whole visit of one website */
  timeoutMs: number;
  /** per response body; reading stops beyond it */
  maxBytes: number;
  /** websites visited at once by this enricher (the registry shares one per worker process) */
  concurrency: number;
  /** the home page plus at most maxPages - 1 contact/about pages; default 4 */
  maxPages?: number;
  /**
   * requests at once to one hostname, across every website this enricher visits; default 2, so a site's linked
   * pages are read together once its home page is in (decision 037), and no host sees more than that
   */
  perHost?: number;
  /** default 5 */
  maxRedirects?: number;
  userAgent?: string;
  /** DNS, injectable for tests; default dns.promises.lookup with all: true */
  lookup?: LookupFn;
}

export type PageLabel = 'home page' | `${PageKind} page`;

/** Where the result came from, for the lead's `enrichment` object. */
export interface EnrichmentProvenance {
  /** the page the first email was read from */
  emailSource: PageLabel | null;
  emailBasis: EmailBasis | null;
  profileSources: { facebook: PageLabel | null; instagram: PageLabel | null; linkedin: PageLabel | null };
  pagesVisited: number;
  /** the exact URL of the page the first email was read from (decision 038: the value's `sourceUrl`) */
  emailUrl: string | null;
  /** the exact URL of the page each profile was read from */
  profileUrls: { facebook: string | null; instagram: string | null; linkedin: string | null };
}

export interface EnrichmentResult {
  /** best first, deduplicated, lower-cased */
  emails: string[];
  socialProfiles: SocialProfiles;
  provenance: EnrichmentProvenance;
}

export interface EnrichmentHints {
  /** the business's name, to recognise a mailto link presented next to it */
  businessName?: string | null;
}

export interface WebsiteEnricher {
  /** Never throws, except with signal.reason once the signal aborts; failures give an empty (or partial) result. */
  enrich(websiteUrl: string, signal: AbortSignal, hints?: EnrichmentHints): Promise<EnrichmentResult>;
}

/**
 * Used when no user agent is configured (config derives ENRICHMENT_USER_AGENT's default from
 * PUBLIC_BASE_URL). `LeadgenBot` is the product token robots.txt rules name.
 */
export const DEFAULT_USER_AGENT = 'LeadgenBot/1.0 (self-hosted lead generation service; reads public contact pages; honours robots.txt)';

const PAGE_TYPES = new Set(['text/html', 'application/xhtml+xml', 'text/plain']);
const PAGE_ACCEPT = 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8';
// RFC 9309 asks crawlers to parse at least 500 KiB of robots.txt; more is not worth reading
const ROBOTS_MAX_BYTES = 512 * 1024;
// An enricher may live as long as its worker process: the robots.txt cache is bounded in size and,
// as RFC 9309 2.4 asks, in age.
const ROBOTS_CACHE_ENTRIES = 1000;
const ROBOTS_CACHE_MS = 60 * 60 * 1000;
// contact-looking links considered; later ones are only tried when earlier ones are disallowed
const MAX_CANDIDATE_LINKS = 12;

const defaultLookup: LookupFn = async (hostname) => {
  const addresses = await dns.lookup(hostname, { all: true, verbatim: true });
  return addresses.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

export function createWebsiteEnricher(options: EnrichmentOptions): WebsiteEnricher {
  const policy: NetworkPolicy = options.allowPrivateNetworks
    ? { isForbiddenAddress: () => false, isAllowedPort: () => true }
    : { isForbiddenAddress, isAllowedPort: (port) => port === 80 || port === 443 };
  return createEnricherWithPolicy(options, policy);
}

/**
 * Not exported from the package: lets tests treat loopback as "public" to exercise the checks
 * on redirect hops without any outbound connection.
 */
export function createEnricherWithPolicy(options: EnrichmentOptions, policy: NetworkPolicy): WebsiteEnricher {
  return new Enricher(
    {
      timeoutMs: Math.max(1, options.timeoutMs),
      maxBytes: Math.max(1, options.maxBytes),
      maxPages: Math.max(1, options.maxPages ?? 4),
      maxRedirects: Math.max(0, options.maxRedirects ?? 5),
      perHost: Math.max(1, options.perHost ?? 2),
      userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
      lookup: options.lookup ?? defaultLookup,
    },
    policy,
    Math.max(1, options.concurrency),
  );
}

interface Settings {
  timeoutMs: number;
  maxBytes: number;
  maxPages: number;
  maxRedirects: number;
  perHost: number;
  userAgent: string;
  lookup: LookupFn;
}

class Enricher implements WebsiteEnricher {
  private readonly sites: AbortableLimit;
  // at most perHost requests at once per hostname, across every website this enricher visits
  private readonly hosts: KeyedLimiter;
  // kept-alive connections, per host and checked address (safe-fetch's AgentPool): a site's pages share one
  private readonly agents: AgentPool;
  // per origin; null marks a fetch cut short by its visit's signal, which must not decide for others
  private readonly robots = new Map<string, { rules: Promise<RobotsRules | null>; expires: number }>();

  constructor(
    private readonly settings: Settings,
    private readonly policy: NetworkPolicy,
    concurrency: number,
  ) {
    this.sites = abortableLimit(concurrency);
    this.hosts = new KeyedLimiter(settings.perHost);
    this.agents = new AgentPool({ maxSocketsPerHost: settings.perHost });
  }

  async enrich(websiteUrl: string, signal: AbortSignal, hints: EnrichmentHints = {}): Promise<EnrichmentResult> {
    const found = new Findings(hints.businessName ?? null);
    await this.sites(signal, async () => {
      // the per-website clock starts once a slot is free: waiting is bounded by the caller's signal
      const visit = signalUntil(signal, Date.now() + this.settings.timeoutMs);
      try {
        await this.crawl(websiteUrl, visit.signal, found);
      } catch {
        // an enrichment failure never fails the lead: keep whatever the earlier pages gave
      } finally {
        visit.dispose();
      }
    });
    if (signal.aborted) throw signal.reason;
    return found.result();
  }

  private async crawl(websiteUrl: string, signal: AbortSignal, found: Findings): Promise<void> {
    const start = toWebsiteUrl(websiteUrl);
    if (!start) return;
    const home = await this.fetchPage(start, signal);
    if (home.body === null) return;
    // the home page may have redirected (http→https, apex→www, a new domain): that is the site now
    const homePage = parsePage(home.body);
    found.add(homePage, home.body, home.url, 'home page');
    let pages = 1;
    // Early stop: the home page gave everything a lead can take from a site (decision 037).
    if (found.complete()) return;
    const candidates = findContactPages(homePage, home.url, MAX_CANDIDATE_LINKS);
    // The linked pages are asked for together (the per-host limit says how many reach the host at once), in waves
    // of the pages still allowed; their findings are taken in candidate order, so the result does not depend on
    // which answered first, and once the site gave everything the rest of the wave is called off.
    let next = 0;
    while (pages < this.settings.maxPages && next < candidates.length && !signal.aborted) {
      const wave = candidates.slice(next, next + this.settings.maxPages - pages);
      next += wave.length;
      const scope = new AbortController();
      const onAbort = () => scope.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      const fetches = wave.map((link) =>
        this.fetchPage(link.url, scope.signal).then(
          (page) => ({ link, page }),
          (error: unknown) => ({ link, error }),
        ),
      );
      try {
        for (const pending of fetches) {
          const outcome = await pending;
          if ('page' in outcome) {
            pages++;
            const { page, link } = outcome;
            // a contact link that leaves the site (a form service, a parent company) says nothing about this business
            if (page.body !== null && isSameSite(page.url, home.url))
              found.add(parsePage(page.body), page.body, page.url, `${link.kind} page`);
            if (found.complete()) {
              scope.abort(new DOMException('the site gave what the lead needs', 'AbortError'));
              return;
            }
          } else if (!scope.signal.aborted && !(outcome.error instanceof FetchError && outcome.error.code === 'disallowed_by_robots')) {
            // a page robots.txt keeps us from costs no request, so the next candidate may take its place
            pages++;
          }
        }
      } finally {
        signal.removeEventListener('abort', onAbort);
        if (!scope.signal.aborted) scope.abort(new DOMException('wave over', 'AbortError'));
      }
    }
  }

  /** One page of a website, counted by outcome (leadgen_enrichment_fetches_total). */
  private async fetchPage(url: URL, signal: AbortSignal): Promise<FetchedResponse> {
    try {
      const page = await this.fetchPageOnce(url, signal);
      metrics.enrichmentFetches.inc({
        outcome: page.body !== null ? 'ok' : page.status < 200 || page.status > 299 ? 'http_error' : 'not_a_page',
      });
      return page;
    } catch (error) {
      metrics.enrichmentFetches.inc({ outcome: fetchOutcome(error) });
      throw error;
    }
  }

  private fetchPageOnce(url: URL, signal: AbortSignal): Promise<FetchedResponse> {
    return safeFetch(url, {
      ...this.fetchOptions(signal),
      accept: PAGE_ACCEPT,
      maxBytes: this.settings.maxBytes,
      wantsBody: (mediaType) => PAGE_TYPES.has(mediaType),
      mayRequest: async (target) =>
        (await this.robotsFor(target.origin, signal)).isAllowed(`${target.pathname}${target.search}`, this.settings.userAgent),
    });
  }

  private fetchOptions(signal: AbortSignal): Omit<SafeFetchOptions, 'accept' | 'maxBytes' | 'wantsBody'> {
    return {
      policy: this.policy,
      lookup: this.settings.lookup,
      userAgent: this.settings.userAgent,
      maxRedirects: this.settings.maxRedirects,
      signal,
      withHost: (hostname, task) => this.hosts.run(hostname.toLowerCase(), signal, task),
      agents: this.agents,
    };
  }

  private async robotsFor(origin: string, signal: AbortSignal): Promise<RobotsRules> {
    for (;;) {
      let entry = this.robots.get(origin);
      if (!entry || entry.expires <= Date.now()) {
        this.robots.delete(origin);
        // Map keeps insertion order, so the first key is the oldest entry
        if (this.robots.size >= ROBOTS_CACHE_ENTRIES) this.robots.delete(this.robots.keys().next().value ?? '');
        entry = { rules: this.fetchRobots(origin, signal), expires: Date.now() + ROBOTS_CACHE_MS };
        this.robots.set(origin, entry);
      }
      const rules = await entry.rules;
      if (rules) return rules;
      if (this.robots.get(origin) === entry) this.robots.delete(origin);
      // our own visit is over; otherwise another visit gave up on it and we fetch it ourselves
      if (signal.aborted) return disallowAll;
    }
  }

  private async fetchRobots(origin: string, signal: AbortSignal): Promise<RobotsRules | null> {
    try {
      const response = await safeFetch(`${origin}/robots.txt`, {
        ...this.fetchOptions(signal),
        accept: 'text/plain,*/*;q=0.5',
        maxBytes: Math.min(this.settings.maxBytes, ROBOTS_MAX_BYTES),
        // servers label robots.txt with all sorts of types; the parser ignores what is not a rule
        wantsBody: () => true,
      });
      if (response.status >= 200 && response.status < 300) return parseRobots(response.body ?? '');
      // 429 and 5xx: the server is struggling or refusing, so stay away (RFC 9309 2.3.1.3)
      if (response.status === 429 || response.status >= 500) return disallowAll;
      // other 4xx and a redirect without a target: robots.txt is "unavailable", crawling is allowed
      return allowAll;
    } catch (error) {
      if (signal.aborted) return null;
      // RFC 9309 2.3.1.2: after too many redirects robots.txt may be treated as unavailable
      if (error instanceof FetchError && error.code === 'too_many_redirects') return allowAll;
      // unreachable (DNS, connection, refused address): assume complete disallow (2.3.1.4)
      return disallowAll;
    }
  }
}

/** Accepts what places APIs hand out: full URLs, and bare `www.shop.com/path` without a scheme. */
function toWebsiteUrl(input: string): URL | null {
  const trimmed = input.trim();
  if (trimmed === '') return null;
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`);
    url.hash = '';
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

class Findings {
  private readonly sightings: Array<EmailSighting & { page: PageLabel; url: string }> = [];
  private readonly social: SocialProfiles = { facebook: null, instagram: null, linkedin: null };
  private readonly socialPages: EnrichmentProvenance['profileSources'] = { facebook: null, instagram: null, linkedin: null };
  private readonly socialUrls: EnrichmentProvenance['profileUrls'] = { facebook: null, instagram: null, linkedin: null };
  private siteHost = '';
  private pagesVisited = 0;

  constructor(private readonly businessName: string | null) {}

  /** an address and the three profiles: nothing more a lead can take from the site */
  complete(): boolean {
    return (
      rankSightings(this.sightings, this.siteHost).length > 0 &&
      this.social.facebook !== null &&
      this.social.instagram !== null &&
      this.social.linkedin !== null
    );
  }

  add(page: ReturnType<typeof parsePage>, html: string, pageUrl: URL, label: PageLabel): void {
    // the first page is the home page; its host is the site's own domain for ranking
    if (this.siteHost === '') this.siteHost = pageUrl.hostname;
    this.pagesVisited++;
    const contactPage = label === 'contact page' || label === 'imprint page';
    for (const sighting of sightEmails(page, html, { contactPage, businessName: this.businessName }))
      this.sightings.push({ ...sighting, page: label, url: pageUrl.href });
    const profiles = extractSocialProfiles(html, pageUrl.href);
    for (const network of ['facebook', 'instagram', 'linkedin'] as const) {
      if (this.social[network] === null && profiles[network] !== null) {
        this.social[network] = profiles[network];
        this.socialPages[network] = label;
        this.socialUrls[network] = pageUrl.href;
      }
    }
  }

  result(): EnrichmentResult {
    const ranked = rankSightings(this.sightings, this.siteHost);
    const top = ranked[0];
    // the page where the top address was first seen on the grounds it is ranked by
    const seen = top === undefined ? undefined : this.sightings.find((s) => s.email.trim().toLowerCase() === top.email);
    return {
      emails: ranked.map((r) => r.email),
      socialProfiles: { ...this.social },
      provenance: {
        emailSource: seen?.page ?? null,
        emailBasis: top?.basis ?? null,
        profileSources: { ...this.socialPages },
        pagesVisited: this.pagesVisited,
        emailUrl: seen?.url ?? null,
        profileUrls: { ...this.socialUrls },
      },
    };
  }
}

function fetchOutcome(error: unknown): string {
  if (!(error instanceof FetchError)) return 'network_error';
  switch (error.code) {
    case 'invalid_url':
    case 'unsupported_scheme':
    case 'forbidden_port':
    case 'forbidden_address':
      return 'blocked';
    case 'disallowed_by_robots':
      return 'robots_disallowed';
    default:
      return error.code;
  }
}
