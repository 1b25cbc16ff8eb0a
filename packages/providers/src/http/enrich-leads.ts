import type { LeadRecord, SocialProfiles } from '@leadgen/domain';
import { mapWithConcurrency, signalUntil } from './abort';

/**
 * The shape of the enrichment module's WebsiteEnricher (packages/providers/src/enrichment),
 * restated here so the adapters depend on the behaviour, not on that module: tests pass a stub.
 * `enrich` never throws unless its signal aborts.
 */
export interface WebsiteEnricherLike {
  enrich(websiteUrl: string, signal: AbortSignal): Promise<{ emails: string[]; socialProfiles: SocialProfiles }>;
}

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
export async function enrichLeads(leads: readonly LeadRecord[], step: EnrichmentStep, signal: AbortSignal, deadline: number): Promise<void> {
  const todo = leads.filter(needsEnrichment);
  if (todo.length === 0) return;
  const scope = signalUntil(signal, deadline - step.deadlineMarginMs);
  try {
    await mapWithConcurrency(todo, step.concurrency, async (lead) => {
      if (scope.signal.aborted) return;
      try {
        const found = await step.enricher.enrich(lead.website as string, scope.signal);
        lead.email ??= found.emails[0] ?? null;
        lead.socialProfiles.facebook ??= found.socialProfiles.facebook;
        lead.socialProfiles.instagram ??= found.socialProfiles.instagram;
        lead.socialProfiles.linkedin ??= found.socialProfiles.linkedin;
      } catch {
        // An enricher that breaks its promise not to throw is treated like one that found nothing.
      }
    });
  } finally {
    scope.dispose();
  }
  if (signal.aborted) throw signal.reason;
}
