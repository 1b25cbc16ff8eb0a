import { metrics } from '@leadgen/ops';
import { promises as dns } from 'dns';
import { signalUntil } from '../abortable-waits';
import { isForbiddenAddress } from '@leadgen/network-guard';
import { type EmailBasis, type EmailSighting, normaliseEmail, rankSightings, sightEmails } from './extract-emails';
import { findSocialProfiles, type ProfileReason, type SocialProfiles } from './extract-social';
import { findContactPages, isSameSite, type PageDocument, type PageKind, parsePage } from './html';
import { isParkedPage } from './parked-domain';
import { type BrowserOptions, type BrowserRenderer, createBrowserRenderer, isApplicationShell } from './browser-renderer';
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
  /** the browser tier for application-shell pages (decision 040); off when absent or not enabled */
  browser?: BrowserOptions & { enabled: boolean };
}

export type PageLabel = 'home page' | `${PageKind} page`;

/** Where one value was read and why it is taken as the business's. */
export interface ValueSource {
  /** the page it was read on, after redirects */
  sourceUrl: string;
  /** the evidence: an EmailBasis for an address ("site domain", "contact block", ...), a ProfileReason for a profile */
  basis: EmailBasis | ProfileReason;
}

/** Where the result came from, for the lead's `enrichment` object. */
export interface EnrichmentProvenance {
  /** the page the first email was read from */
  emailSource: PageLabel | null;
  emailBasis: EmailBasis | null;
  profileSources: { facebook: PageLabel | null; instagram: PageLabel | null; linkedin: PageLabel | null };
  pagesVisited: number;
  /** per value returned: the page it came from and the reason it is the business's */
  sources: {
    emails: Record<string, ValueSource>;
    facebook: ValueSource | null;
    instagram: ValueSource | null;
    linkedin: ValueSource | null;
  };
}

export interface EnrichmentResult {
  /** 'parked': a registrar's parking or expired-domain page, nothing taken from it; 'unreachable': no page could be read */
  websiteStatus: 'ok' | 'parked' | 'unreachable';
  /** best first, deduplicated, lower-cased, domains in ASCII */
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
  /** Stops the browser tier's Chromium, if it was started, and closes the kept-alive connections. */
  close(): Promise<void>;
}

/**
 * Used when no user agent is configured (config derives ENRICHMENT_USER_AGENT's default from
 * PUBLIC_BASE_URL). `LeadgenBot` is the product token robots.txt rules name.
 */
export const DEFAULT_USER_AGENT = 'LeadgenBot/1.0 (self-hosted lead generation service; reads public contact pages; honours robots.txt)';

const PAGE_TYPES = new Set(['text/html', 'application/xhtml+xml', 'text/plain']);
// what a rendered page may load: its scripts, their data, styles and documents; never media or binaries
const RESOURCE_TYPES = /^(?:text\/[\w.+-]+|application\/(?:(?:x-)?javascript|ecmascript|json|[\w.+-]+\+json|xhtml\+xml))$/;
const PAGE_ACCEPT = 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8';
// RFC 9309 asks crawlers to parse at least 500 KiB of robots.txt; more is not worth reading
const ROBOTS_MAX_BYTES = 512 * 1024;
// An enricher may live as long as its worker process: the robots.txt cache is bounded in size and,
// as RFC 9309 2.4 asks, in age.
const ROBOTS_CACHE_ENTRIES = 1000;
const ROBOTS_CACHE_MS = 60 * 60 * 1000;
// contact-looking links considered; later ones are only tried when earlier ones are disallowed
const MAX_CANDIDATE_LINKS = 12;
// a root that only refreshes to another page (a language folder, a moved site) is followed this often
const MAX_REFRESHES = 2;
// a page with this much text or more is a page of its own, whatever its refresh says
const REFRESH_PAGE_TEXT = 200;

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
    options.browser?.enabled ? createBrowserRenderer(options.browser) : null,
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
    private readonly browser: BrowserRenderer | null,
  ) {
    this.sites = abortableLimit(concurrency);
    this.hosts = new KeyedLimiter(settings.perHost);
    this.agents = new AgentPool({ maxSocketsPerHost: settings.perHost });
  }

  async close(): Promise<void> {
    await this.browser?.close();
    this.agents.destroy();
  }

  /** A page as a person sees it: an application shell rendered by the browser tier when it is on. */
  private async read(page: FetchedResponse & { body: string }, signal: AbortSignal): Promise<{ parsed: PageDocument; body: string }> {
    const parsed = parsePage(page.body);
    if (this.browser === null || !isApplicationShell(parsed, page.body)) return { parsed, body: page.body };
    const started = Date.now();
    const rendered = await this.browser.render(page.url, page.body, (url, s) => this.fetchResource(url, s), signal);
    metrics.enrichmentFetches.inc({ outcome: rendered === null ? 'render_failed' : 'rendered' });
    this.renderMs += Date.now() - started;
    return rendered === null ? { parsed, body: page.body } : { parsed: parsePage(rendered), body: rendered };
  }

  /** total time spent rendering, for the bench */
  renderMs = 0;

  /** A script, data or style the rendered page asks for: through the same guard, robots.txt and host slot as every page. */
  private async fetchResource(url: URL, signal: AbortSignal): Promise<{ status: number; mediaType: string; body: string } | null> {
    const response = await safeFetch(url, {
      ...this.fetchOptions(signal),
      accept: '*/*',
      maxBytes: this.settings.maxBytes,
      wantsBody: (mediaType) => RESOURCE_TYPES.test(mediaType),
      mayRequest: async (target) =>
        (await this.robotsFor(target.origin, signal)).isAllowed(`${target.pathname}${target.search}`, this.settings.userAgent),
    });
    return response.body === null ? null : { status: response.status, mediaType: response.mediaType, body: response.body };
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
    let home = await this.fetchPage(start, signal);
    if (home.body === null) return;
    // the home page may have redirected (http→https, apex→www, a new domain): that is the site now
    let { parsed: homePage, body: homeBody } = await this.read({ ...home, body: home.body }, signal);
    // a root that is only a <meta http-equiv="refresh"> is a redirect a browser follows
    for (let hop = 0; hop < MAX_REFRESHES; hop++) {
      const target = sameSiteUrl(homePage.refresh, home.url);
      if (target === null || textLength(homePage) >= REFRESH_PAGE_TEXT || signal.aborted) break;
      const next = await this.fetchPage(target, signal);
      if (next.body === null) break;
      home = next;
      ({ parsed: homePage, body: homeBody } = await this.read({ ...next, body: next.body }, signal));
    }
    if (isParkedPage(homePage.blocks.map((b) => b.text).join('\n'), home.url.hostname)) {
      found.parked();
      return;
    }
    found.add(homePage, homeBody, home.url, 'home page');
    let pages = 1;
    // Pages are read in queue order: the home page's same-site frames, then the contact-looking links, a page's
    // own frames read right after it (decision 040). They are fetched ahead of that order (decision 037): the next
    // entries, as many as the per-host limit lets reach the host at once, are asked for together (see readAhead),
    // and their findings are taken in queue order, so the result does not depend on which answered first.
    const queue: QueuedPage[] = [
      ...frames(homePage, home.url).map((url): QueuedPage => ({ url, label: 'home page', frame: true, optional: false })),
      ...findContactPages(homePage, home.url, MAX_CANDIDATE_LINKS).map((link): QueuedPage => ({
        url: link.url,
        label: `${link.kind} page`,
        frame: false,
        optional: link.kind === 'about' || link.kind === 'team',
      })),
    ];
    const seen = new Set<string>([home.url.href]);
    const ahead = new Map<string, { outcome: Promise<PageOutcome>; scope: AbortController }>();
    try {
      for (;;) {
        // Early stop (decision 037), once the pages read so far (with their frames) settle everything the lead can
        // take from the site: see Findings.complete for why an address of weaker evidence does not stop the visit.
        if (queue[0]?.frame !== true && found.complete()) return;
        this.readAhead(queue, seen, ahead, this.settings.maxPages - pages, home.url, found.settled(), signal);
        const link = queue.shift();
        if (link === undefined || pages >= this.settings.maxPages || signal.aborted) return;
        if (seen.has(link.url.href)) continue;
        // An about or team page is read for an address only while the site has not given one of its own: once it
        // has, the contact and legal pages (which name the business's other addresses) are still read, these are not.
        if (link.optional && found.settled()) continue;
        seen.add(link.url.href);
        const pending = ahead.get(link.url.href);
        ahead.delete(link.url.href);
        const outcome = await (pending?.outcome ?? this.fetchAndRead(link.url, home.url, signal));
        if ('error' in outcome) {
          // a page robots.txt keeps us from costs no request, so the next candidate may take its place
          if (!(outcome.error instanceof FetchError && outcome.error.code === 'disallowed_by_robots')) pages++;
          continue;
        }
        pages++;
        // a contact link that leaves the site (a form service, a parent company) says nothing about this business
        if (outcome.read === null) continue;
        found.add(outcome.read.parsed, outcome.read.body, outcome.url, link.label);
        // a page that shows a same-site page in an iframe shows its content: read it next, as the same kind of page
        queue.unshift(
          ...frames(outcome.read.parsed, outcome.url).map((url): QueuedPage => ({ url, label: link.label, frame: true, optional: false })),
        );
      }
    } finally {
      // what was asked for ahead and is no longer needed is called off
      for (const { scope } of ahead.values()) scope.abort(new DOMException('the visit is over', 'AbortError'));
    }
  }

  /**
   * Starts the fetch (and read) of the first `room` pages of the queue not yet read, and calls off one asked for
   * earlier that a page's frames pushed out of that window (it is asked for again if room frees up). At most
   * `perHost` pages are asked for ahead: more would only wait for the host's slots, and a page asked for is a page
   * paid for even when the visit stops before reading it. An optional page (about, team) is asked for only once no
   * contact or legal page is pending and the site has not settled its address: it is often not read at all.
   */
  private readAhead(
    queue: readonly QueuedPage[],
    seen: ReadonlySet<string>,
    ahead: Map<string, { outcome: Promise<PageOutcome>; scope: AbortController }>,
    room: number,
    site: URL,
    settled: boolean,
    signal: AbortSignal,
  ): void {
    const window = new Set<string>();
    let required = false;
    for (const { url, optional } of queue) {
      if (window.size >= Math.min(room, this.settings.perHost)) break;
      if (seen.has(url.href)) continue;
      if (optional && (settled || required)) continue;
      required ||= !optional;
      window.add(url.href);
    }
    for (const [href, { scope }] of ahead) {
      if (window.has(href)) continue;
      scope.abort(new DOMException('pushed out by a frame', 'AbortError'));
      ahead.delete(href);
    }
    for (const href of window) {
      if (ahead.has(href) || signal.aborted) continue;
      const scope = new AbortController();
      const outcome = this.fetchAndRead(new URL(href), site, AbortSignal.any([signal, scope.signal]));
      // a page fetched ahead and then called off is never awaited: its failure is not unhandled
      outcome.catch(() => undefined);
      ahead.set(href, { outcome, scope });
    }
  }

  /** One linked page, fetched and read as a person sees it; null `read` for a page that is not this site's. */
  private async fetchAndRead(url: URL, site: URL, signal: AbortSignal): Promise<PageOutcome> {
    try {
      const page = await this.fetchPage(url, signal);
      if (page.body === null || !isSameSite(page.url, site)) return { url: page.url, read: null };
      return { url: page.url, read: await this.read({ ...page, body: page.body }, signal) };
    } catch (error) {
      return { error };
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

/** A same-site http(s) URL from a page's reference, or null. */
function sameSiteUrl(reference: string | null, base: URL): URL | null {
  if (reference === null) return null;
  try {
    const url = new URL(reference, base);
    url.hash = '';
    return (url.protocol === 'http:' || url.protocol === 'https:') && isSameSite(url, base) && url.href !== base.href ? url : null;
  } catch {
    return null;
  }
}

// Embedded maps, videos and widgets are other sites; a same-site frame is part of the page.
function frames(page: PageDocument, base: URL): URL[] {
  return page.frames.map((src) => sameSiteUrl(src, base)).filter((url): url is URL => url !== null && !NOT_A_FRAME.test(url.pathname));
}
const NOT_A_FRAME = /\.(?:pdf|jpe?g|png|gif|svg|webp|mp4|webm)$/i;

interface QueuedPage {
  url: URL;
  label: PageLabel;
  /** a same-site frame of a page read: part of that page, read before the visit may stop */
  frame: boolean;
  /** an about or team page: read only while the site has not given an address of its own (Findings.settled) */
  optional: boolean;
}

type PageOutcome = { url: URL; read: { parsed: PageDocument; body: string } | null } | { error: unknown };

function textLength(page: PageDocument): number {
  return page.blocks.reduce((n, b) => n + b.text.length, 0);
}

class Findings {
  private readonly sightings: Array<EmailSighting & { page: PageLabel; url: string }> = [];
  private readonly social: Record<keyof SocialProfiles, (ValueSource & { url: string; page: PageLabel }) | null> = {
    facebook: null,
    instagram: null,
    linkedin: null,
  };
  private siteHost = '';
  private pagesVisited = 0;
  private status: EnrichmentResult['websiteStatus'] = 'unreachable';

  constructor(private readonly businessName: string | null) {}

  /**
   * Nothing more a lead can take from the site: an address and the three profiles (decision 037's early stop). The
   * address must be one on the site's own domain or one named after the business: those are the business's
   * whatever a later page says. Any other address is the business's only on how a page presents it, and a later
   * page can take that back (a credit line naming it, rankSightings' `credited`): such a visit goes on (decision 040).
   */
  complete(): boolean {
    const basis = this.status === 'ok' ? this.ranked()[0]?.basis : undefined;
    return (
      (basis === 'site domain' || basis === 'business name domain') &&
      this.social.facebook !== null &&
      this.social.instagram !== null &&
      this.social.linkedin !== null
    );
  }

  /**
   * The site gave an address named after it: on its own domain, on a domain named after the business, or a mailbox
   * named after it. About and team pages are then not read for more; contact and legal pages still are, since they
   * name the business's other addresses and a credit line there can still take one back (decision 040).
   */
  settled(): boolean {
    if (this.status !== 'ok') return false;
    const basis = this.ranked()[0]?.basis;
    return basis === 'site domain' || basis === 'business name domain' || basis === 'named after the business';
  }

  // the sightings ranked, computed again only when a page added some
  private rankedCache: { count: number; ranked: ReturnType<typeof rankSightings> } | null = null;
  private ranked(): ReturnType<typeof rankSightings> {
    if (this.rankedCache?.count !== this.sightings.length)
      this.rankedCache = {
        count: this.sightings.length,
        ranked: rankSightings(this.sightings, { siteHost: this.siteHost, businessName: this.businessName }),
      };
    return this.rankedCache.ranked;
  }

  parked(): void {
    this.pagesVisited++;
    this.status = 'parked';
  }

  add(page: PageDocument, html: string, pageUrl: URL, label: PageLabel): void {
    // the first page is the home page; its host is the site's own domain for ranking
    if (this.siteHost === '') this.siteHost = pageUrl.hostname;
    this.status = 'ok';
    this.pagesVisited++;
    const contactPage = label === 'contact page' || label === 'imprint page';
    for (const sighting of sightEmails(page, html, { contactPage, businessName: this.businessName }))
      this.sightings.push({ ...sighting, page: label, url: pageUrl.href });
    const profiles = findSocialProfiles(html, pageUrl.href);
    for (const network of ['facebook', 'instagram', 'linkedin'] as const) {
      const profile = profiles[network];
      if (this.social[network] === null && profile !== null)
        this.social[network] = { url: profile.url, basis: profile.reason, sourceUrl: pageUrl.href, page: label };
    }
  }

  result(): EnrichmentResult {
    const ranked = this.status === 'ok' ? this.ranked() : [];
    // each address's source: the first page where it was seen
    const sourceOf = (email: string) => this.sightings.find((s) => normaliseEmail(s.email) === email);
    const emails: Record<string, ValueSource> = {};
    for (const { email, basis } of ranked) emails[email] = { sourceUrl: sourceOf(email)?.url ?? '', basis };
    const top = ranked[0];
    const social = this.status === 'ok' ? this.social : { facebook: null, instagram: null, linkedin: null };
    const source = (network: keyof SocialProfiles) => {
      const found = social[network];
      return found === null ? null : { sourceUrl: found.sourceUrl, basis: found.basis };
    };
    return {
      websiteStatus: this.status,
      emails: ranked.map((r) => r.email),
      socialProfiles: {
        facebook: social.facebook?.url ?? null,
        instagram: social.instagram?.url ?? null,
        linkedin: social.linkedin?.url ?? null,
      },
      provenance: {
        emailSource: top === undefined ? null : (sourceOf(top.email)?.page ?? null),
        emailBasis: top?.basis ?? null,
        profileSources: {
          facebook: social.facebook?.page ?? null,
          instagram: social.instagram?.page ?? null,
          linkedin: social.linkedin?.page ?? null,
        },
        pagesVisited: this.pagesVisited,
        sources: { emails, facebook: source('facebook'), instagram: source('instagram'), linkedin: source('linkedin') },
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
