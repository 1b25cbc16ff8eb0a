import { setMaxListeners } from 'node:events';
import type { LeadEnrichment, LeadRecord, SocialProfiles, ValueSource, WebsiteValueSource } from '@leadgen/domain';
import { signalUntil } from '../abortable-waits';
import { abortableLimit } from './concurrency-limits';

/**
 * What enrichLeads needs of a WebsiteEnricher: a looser shape (provenance optional), so the
 * adapters' tests can pass a stub. `enrich` never throws unless its signal aborts.
 */
export interface WebsiteEnricherLike {
  enrich(
    websiteUrl: string,
    signal: AbortSignal,
    hints?: { businessName?: string | null },
  ): Promise<{ emails: string[]; socialProfiles: SocialProfiles; provenance?: WebsiteProvenance; websiteStatus?: WebsiteStatus }>;
}

type WebsiteStatus = NonNullable<LeadEnrichment['websiteStatus']>;

interface WebsiteProvenance {
  emailSource: string | null;
  emailBasis: string | null;
  profileSources: { facebook: string | null; instagram: string | null; linkedin: string | null };
  pagesVisited: number;
  /** per value found: the exact page it was read on and why it is the business's (decision 040); decision 038's provenance is filled from it */
  sources?: {
    emails: Record<string, WebsiteValueSource>;
    facebook: WebsiteValueSource | null;
    instagram: WebsiteValueSource | null;
    linkedin: WebsiteValueSource | null;
  };
}

const NETWORKS = ['facebook', 'instagram', 'linkedin'] as const;

export interface EnrichmentStep {
  enricher: WebsiteEnricherLike;
  /** websites enriched at once within one page */
  concurrency: number;
  /**
   * Enrichment stops this long before the job's deadline, so a page whose websites are slow is
   * still handed over (un-enriched) in time rather than lost with the job's time budget.
   */
  deadlineMarginMs: number;
}

function needsEnrichment(lead: LeadRecord): boolean {
  const s = lead.socialProfiles;
  return lead.website !== null && (lead.email === null || s.facebook === null || s.instagram === null || s.linkedin === null);
}

/**
 * Fills a page's missing email and social profiles from each lead's website, in place. What the
 * upstream said wins; enrichment only fills gaps. A failed or timed-out enrichment leaves the lead
 * as it was: it never fails the lead. Only the job's own abort propagates.
 */
export async function enrichLeads(
  leads: readonly LeadRecord[],
  step: EnrichmentStep,
  signal: AbortSignal,
  deadline: number,
): Promise<void> {
  const todo = leads.filter(needsEnrichment);
  if (todo.length === 0) return;
  const scope = signalUntil(signal, deadline - step.deadlineMarginMs);
  // Every lead of the page waits on this one signal (a listener each while it waits for a slot, one more
  // while it visits): that is the design, not a leak, and Node's default of 10 would print a warning on the
  // worker's stderr for every page of more than 10 leads.
  setMaxListeners(todo.length * 2 + 10, scope.signal);
  // A lead still waiting for a slot when the scope ends is skipped (the limit rejects it): it is handed over as the upstream gave it.
  const limit = abortableLimit(Math.max(1, step.concurrency));
  try {
    await Promise.all(todo.map((lead) => limit(scope.signal, () => enrichLead(lead, step.enricher, scope.signal)).catch(() => undefined)));
  } finally {
    scope.dispose();
  }
  if (signal.aborted) throw signal.reason;
}

/**
 * One lead's missing email and social profiles from its website, in place (the worker's per-lead step,
 * decision 037): as enrichLeads does for a page, for one lead, bounded by the job's deadline less the margin.
 * Only the job's own abort propagates.
 */
export async function enrichOneLead(lead: LeadRecord, step: EnrichmentStep, signal: AbortSignal, deadline: number): Promise<void> {
  if (!needsEnrichment(lead)) return;
  const scope = signalUntil(signal, deadline - step.deadlineMarginMs);
  try {
    if (!scope.signal.aborted) await enrichLead(lead, step.enricher, scope.signal);
  } finally {
    scope.dispose();
  }
  if (signal.aborted) throw signal.reason;
}

async function enrichLead(lead: LeadRecord, enricher: WebsiteEnricherLike, signal: AbortSignal): Promise<void> {
  try {
    const found = await enricher.enrich(lead.website as string, signal, { businessName: lead.businessName });
    const site = found.provenance;
    // Where each value came from, so a buyer can judge it: the upstream, or the page it was read on.
    const filledEmail = lead.email === null ? (found.emails[0] ?? null) : null;
    const enrichment: LeadEnrichment = {
      emailSource: lead.email !== null ? 'upstream' : filledEmail !== null ? (site?.emailSource ?? 'website') : null,
      emailBasis: filledEmail !== null ? (site?.emailBasis ?? null) : null,
      profileSources: { facebook: null, instagram: null, linkedin: null },
      pagesVisited: site?.pagesVisited ?? 0,
    };
    // the exact page and the evidence of each value the website filled (decision 040)
    const sources: NonNullable<LeadEnrichment['sources']> = {
      email: filledEmail !== null ? (site?.sources?.emails[filledEmail] ?? null) : null,
      facebook: null,
      instagram: null,
      linkedin: null,
    };
    // Decision 038: a value the visit filled carries, in the lead's provenance, the page it was read on
    // (the crawler's sourceUrl), the crawler's basis, and when.
    const readAt = new Date().toISOString();
    const fromSite = (source: WebsiteValueSource | null, basis: string | null): ValueSource => ({
      origin: 'website',
      upstream: null,
      sourceUrl: source?.sourceUrl ?? null,
      basis: source?.basis ?? basis,
      retrievedAt: readAt,
    });
    if (filledEmail !== null && lead.provenance) lead.provenance.email = fromSite(sources.email, site?.emailBasis ?? null);
    lead.email ??= filledEmail;
    for (const network of NETWORKS) {
      const had = lead.socialProfiles[network] !== null;
      lead.socialProfiles[network] ??= found.socialProfiles[network];
      const filled = !had && lead.socialProfiles[network] !== null;
      enrichment.profileSources[network] = had ? 'upstream' : filled ? (site?.profileSources[network] ?? 'website') : null;
      sources[network] = filled ? (site?.sources?.[network] ?? null) : null;
      if (filled && lead.provenance) lead.provenance.socialProfiles[network] = fromSite(sources[network], null);
    }
    if (found.websiteStatus !== undefined) enrichment.websiteStatus = found.websiteStatus;
    if (site?.sources !== undefined) enrichment.sources = sources;
    lead.enrichment = enrichment;
  } catch {
    // An enricher that breaks its promise not to throw is treated like one that found nothing.
  }
}
