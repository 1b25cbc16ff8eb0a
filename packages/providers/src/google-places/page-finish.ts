import { type GoogleMapsFilters, type GoogleMapsLead, passesGoogleMapsFilters } from '@leadgen/domain';
import type { ProviderLead, ProviderPage } from '../lead-provider';
import { enrichOneLead, type EnrichmentStep } from '../enrichment';

/** Whether a place's lead passes the job's filters (decision 038). */
export function passesFilters(item: ProviderLead, filters: GoogleMapsFilters | undefined): boolean {
  return passesGoogleMapsFilters(item.lead as GoogleMapsLead, filters);
}

/**
 * A page of places as Google answered it, handed over with what is left to do per lead: the worker reads each
 * website it still needs while it already asks for the next page (decision 037). The email filter holds after
 * the visit: a place it leaves out is dropped by its finish, which the worker counts as filtered (decision 038).
 * Without a website step the email is what Google gave (none), so that filter is decided now.
 */
export function withFinish(
  leads: ProviderLead[],
  filtered: number,
  filters: GoogleMapsFilters | undefined,
  step: EnrichmentStep | null,
  deadline: number,
): Pick<ProviderPage, 'leads' | 'filtered' | 'finish'> {
  if (step)
    return {
      leads,
      filtered,
      finish: async (row: ProviderLead, leadSignal: AbortSignal) => {
        await enrichOneLead(row.lead, step, leadSignal, deadline);
        return !filters?.requireEmail || passesFilters(row, filters);
      },
    };
  if (!filters?.requireEmail) return { leads, filtered };
  const kept = leads.filter((item) => passesFilters(item, filters));
  return { leads: kept, filtered: filtered + leads.length - kept.length };
}
