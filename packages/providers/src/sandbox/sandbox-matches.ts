import type { Source } from '@leadgen/domain';
import type { ProviderLead } from '../lead-provider';
import { categoryProfile } from './sandbox-categories';
import { localeFor } from './sandbox-places';
import { seedOf, type SandboxQuery } from './sandbox-query';
import { googleMapsRecord, linkedinRecord, type RecordBuilder } from './sandbox-records';
import { shopifyRecord } from './sandbox-shopify';
import { SeededRandom } from './seeded-random';

const BUILDERS: Record<Source, RecordBuilder> = {
  google_maps: googleMapsRecord,
  linkedin: linkedinRecord,
  shopify: shopifyRecord,
};

export const DEFAULT_MIN_MATCHES = 120;
export const DEFAULT_MAX_MATCHES = 400;

/** How many matches the search has when no directive says: enough that any maxResults completes. */
export function defaultMatchCount(query: SandboxQuery): number {
  return SeededRandom.fromText(`count:${seedOf(query)}`).int(DEFAULT_MIN_MATCHES, DEFAULT_MAX_MATCHES);
}

function domainClaimer(): (slug: string) => string {
  const taken = new Set<string>();
  return (slug) => {
    const base = slug || 'shop';
    let candidate = base;
    for (let n = 2; taken.has(candidate); n++) candidate = `${base}-${n}`;
    taken.add(candidate);
    return `${candidate}.example`;
  };
}

/**
 * The search's matches in their fixed order, built lazily. Always built from the first, so that a
 * resumed search draws the same randomness, and the same domains, as the run it continues.
 */
function* matchesOf(query: SandboxQuery, total: number): Generator<ProviderLead, void, undefined> {
  const context = {
    query,
    rng: SeededRandom.fromText(`leads:${seedOf(query)}`),
    locale: localeFor(query.source === 'linkedin' ? query.linkedinCountry : query.state),
    profile: categoryProfile(query.category),
    claimDomain: domainClaimer(),
  };
  const build = BUILDERS[query.source];
  const seen = new Set<string>();
  // A strict requiredChannels filter rejects candidates; past this many the upstream has run dry.
  const maxCandidates = total * 50 + 100;
  let given = 0;
  for (let i = 0; i < maxCandidates && given < total; i++) {
    const match = build(context);
    if (match === null || seen.has(match.dedupKey)) continue;
    seen.add(match.dedupKey);
    given++;
    yield match;
  }
}

/** The matches with one item of look-ahead, so a page knows whether it is the last. */
export class MatchStream {
  private readonly iterator: Iterator<ProviderLead, void, undefined>;
  private next: IteratorResult<ProviderLead, void>;

  constructor(query: SandboxQuery, total: number) {
    this.iterator = matchesOf(query, total);
    this.next = this.iterator.next();
  }

  hasMore(): boolean {
    return this.next.done !== true;
  }

  take(count: number): ProviderLead[] {
    const out: ProviderLead[] = [];
    while (out.length < count && this.next.done !== true) {
      out.push(this.next.value);
      this.next = this.iterator.next();
    }
    return out;
  }

  skip(count: number): void {
    for (let i = 0; i < count && this.next.done !== true; i++) this.next = this.iterator.next();
  }
}
