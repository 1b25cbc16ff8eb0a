import { setMaxListeners } from 'node:events';
import type { LeadEnrichment, LeadRecord, SocialProfiles, ValueSource } from '@leadgen/domain';
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
  ): Promise<{ emails: string[]; socialProfiles: SocialProfiles; provenance?: WebsiteProvenance }>;
}

interface WebsiteProvenance {
  emailSource: string | null;
  emailBasis: string | null;
  profileSources: { facebook: string | null; instagram: string | null; linkedin: string | null };
  pagesVisited: number;
  /** the exact pages the email and each profile were read on (decision 038) */
  emailUrl?: string | null;
  profileUrls?: { facebook: string | null; instagram: string | null; linkedin: string | null };
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
    const enrichment: LeadEnrichment = {
      emailSource: lead.email !== null ? 'upstream' : found.emails[0] !== undefined ? (site?.emailSource ?? 'website') : null,
      emailBasis: lead.email === null && found.emails[0] !== undefined ? (site?.emailBasis ?? null) : null,
      profileSources: { facebook: null, instagram: null, linkedin: null },
      pagesVisited: site?.pagesVisited ?? 0,
    };
    // Decision 038: a value the visit filled says the page it was read on and when.
    const readAt = new Date().toISOString();
    const fromSite = (sourceUrl: string | null | undefined, basis: string | null): ValueSource => ({
      origin: 'website',
      upstream: null,
      sourceUrl: sourceUrl ?? null,
      basis,
      retrievedAt: readAt,
    });
    if (lead.email === null && found.emails[0] !== undefined && lead.provenance)
      lead.provenance.email = fromSite(site?.emailUrl, site?.emailBasis ?? null);
    lead.email ??= found.emails[0] ?? null;
    for (const network of NETWORKS) {
      const had = lead.socialProfiles[network] !== null;
      if (!had && found.socialProfiles[network] !== null && lead.provenance)
        lead.provenance.socialProfiles[network] = fromSite(site?.profileUrls?.[network], null);
      lead.socialProfiles[network] ??= found.socialProfiles[network];
      enrichment.profileSources[network] = had
        ? 'upstream'
        : lead.socialProfiles[network] !== null
          ? (site?.profileSources[network] ?? 'website')
          : null;
    }
    lead.enrichment = enrichment;
  } catch {
    // An enricher that breaks its promise not to throw is treated like one that found nothing.
  }
}
