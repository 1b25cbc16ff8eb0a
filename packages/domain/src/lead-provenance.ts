/**
 * Where one contact value of a lead came from and when (decision 038). Every email, phone, website and
 * social profile a lead carries has one; so has each value of a shopify lead's contacts.
 *
 * - `origin: "upstream"`: the source's API answered it. `upstream` names the provider (the job body's
 *   `provider`: google_places, people_data_labs, storeleads, sandbox); `sourceUrl` is the upstream's own
 *   public page for the record when it has one (the place's Google Maps URI, the store's domain URL), else null.
 * - `origin: "website"`: read from the business's own website by the crawler. `sourceUrl` is the exact page
 *   the value was read on (never only the site's home URL unless it was read there); `basis` says why the
 *   value is taken as the business's (the crawler's reasons: "site domain", "structured data", ...).
 * - `retrievedAt`: when the upstream answered or the page was read (ISO 8601, UTC).
 */
export interface ValueSource {
  origin: 'upstream' | 'website';
  /** the provider that answered (origin upstream); null for a website value */
  upstream: string | null;
  /** the upstream's public page for the record, or the page the value was read on; null when there is none */
  sourceUrl: string | null;
  /** why a website value is taken as the business's; absent for upstream values */
  basis?: string | null;
  retrievedAt: string;
}

/** A `ValueSource` per contact value of the lead's common core; null where the value itself is null. */
export interface LeadProvenance {
  email: ValueSource | null;
  phone: ValueSource | null;
  website: ValueSource | null;
  socialProfiles: { facebook: ValueSource | null; instagram: ValueSource | null; linkedin: ValueSource | null };
}

/** A `ValueSource` per value of one shopify contact. */
export interface ContactProvenance {
  email: ValueSource | null;
  phone: ValueSource | null;
  linkedinUrl: ValueSource | null;
}

/** An upstream value's source. */
export function fromUpstream(upstream: string, retrievedAt: string, sourceUrl: string | null = null): ValueSource {
  return { origin: 'upstream', upstream, sourceUrl, retrievedAt };
}

/** The provenance of a lead whose every present value came from one upstream answer. */
export function upstreamProvenance(
  values: {
    email: unknown;
    phone: unknown;
    website: unknown;
    socialProfiles: { facebook: unknown; instagram: unknown; linkedin: unknown };
  },
  source: ValueSource,
): LeadProvenance {
  const of = (value: unknown) => (value === null || value === undefined ? null : source);
  return {
    email: of(values.email),
    phone: of(values.phone),
    website: of(values.website),
    socialProfiles: {
      facebook: of(values.socialProfiles.facebook),
      instagram: of(values.socialProfiles.instagram),
      linkedin: of(values.socialProfiles.linkedin),
    },
  };
}
