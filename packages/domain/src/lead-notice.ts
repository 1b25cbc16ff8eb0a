import type { ContactProvenance, LeadProvenance, ValueSource } from './lead-provenance';
import { OBJECTIONS_PATH } from './objections';

/**
 * What a lead's person must be told at the first contact at the latest (GDPR art. 14(2)(f) and 14(3)(b): where
 * the data came from; art. 21(4): that they may object), carried by every lead the service delivers
 * (issue 38, docs/data-protection.md "The notice on every lead"). Derived from the lead's decision-038
 * provenance, so it says no more than the lead already holds.
 */
export interface LeadNotice {
  /**
   * Where the lead's contact values came from, each once, in the order of the lead's values: the upstream by name
   * ("Google Places") and, for a value read on the business's website, the page's URL.
   */
  sources: string[];
  /** when the upstream answered (the lead's `retrievedAt`), else the earliest retrieval of its values; null when unknown */
  retrievedAt: string | null;
  /** where the person objects, for every buyer at once: PUBLIC_BASE_URL + /api/v1/privacy/objections; null without PUBLIC_BASE_URL */
  objectionUrl: string | null;
}

// The providers' names as a person knows them (the job body's `provider` values).
const UPSTREAM_NAMES: Record<string, string> = {
  google_places: 'Google Places',
  people_data_labs: 'People Data Labs',
  storeleads: 'Store Leads',
  sandbox: 'sandbox test data',
};

/** PUBLIC_BASE_URL + the objection endpoint, or null when the service does not know its public address. */
export function objectionUrl(publicBaseUrl: string | null): string | null {
  return publicBaseUrl === null ? null : `${publicBaseUrl.replace(/\/+$/, '')}${OBJECTIONS_PATH}`;
}

/** The notice of one lead, from its provenance (and its shopify contacts' provenance) and retrieval time. */
export function leadNotice(
  lead: { retrievedAt?: string; provenance?: LeadProvenance; contacts?: ReadonlyArray<{ provenance?: ContactProvenance }> },
  publicBaseUrl: string | null,
): LeadNotice {
  const values: Array<ValueSource | null> = [];
  const p = lead.provenance;
  if (p) values.push(p.email, p.phone, p.website, p.socialProfiles.facebook, p.socialProfiles.instagram, p.socialProfiles.linkedin);
  for (const contact of lead.contacts ?? [])
    if (contact.provenance) values.push(contact.provenance.email, contact.provenance.phone, contact.provenance.linkedinUrl);
  const sources: string[] = [];
  let earliest: string | null = null;
  for (const value of values) {
    if (!value) continue;
    const name =
      value.origin === 'website' ? value.sourceUrl : value.upstream === null ? null : (UPSTREAM_NAMES[value.upstream] ?? value.upstream);
    if (name && !sources.includes(name)) sources.push(name);
    if (earliest === null || value.retrievedAt < earliest) earliest = value.retrievedAt;
  }
  return { sources, retrievedAt: lead.retrievedAt ?? earliest, objectionUrl: objectionUrl(publicBaseUrl) };
}
