import { countsAsEmailChannel, mayBeLeadEmail, type EmailVerification, type GenerationRequest, type Lead } from '@leadgen/domain';
import type { LeadProvider, ProviderLead, ProviderPage } from '../lead-provider';
import type { EmailVerifier } from './email-verifier';

function addressesOf(lead: Lead): string[] {
  const found = lead.email === null ? [] : [lead.email];
  if (lead.source === 'shopify') for (const c of lead.contacts) if (c.email !== null) found.push(c.email);
  return found;
}

const rank = (v: EmailVerification) => (v.status === 'accepts_mail' ? 0 : 1);

/**
 * Writes each address's verdict beside it and keeps the lead's `email` deliverable: an address whose
 * domain takes no mail, a malformed or a disposable one gives its place to the next-best address the
 * lead carries (a contact's that takes mail, then one whose domain did not answer), or to null.
 * Contacts keep their own addresses, each with its verdict.
 */
export function applyVerdicts(lead: Lead, verdicts: ReadonlyMap<string, EmailVerification>): void {
  if (lead.source === 'shopify') {
    for (const contact of lead.contacts) contact.emailVerification = contact.email === null ? null : (verdicts.get(contact.email) ?? null);
  }
  const own = lead.email === null ? undefined : verdicts.get(lead.email);
  if (own && mayBeLeadEmail(own)) {
    lead.emailVerification = own;
    return;
  }
  const candidates =
    lead.source === 'shopify'
      ? lead.contacts.filter((c) => c.email !== null && c.emailVerification && mayBeLeadEmail(c.emailVerification))
      : [];
  // A stable sort: among equals, the upstream's order stands.
  const best = candidates.sort((a, b) => rank(a.emailVerification!) - rank(b.emailVerification!))[0];
  lead.email = best?.email ?? null;
  lead.emailVerification = best?.emailVerification ?? null;
}

/** The email channel as shopify's requiredChannels counts it: an address whose domain is known to take mail. */
export function hasVerifiedEmailChannel(lead: Lead): boolean {
  if (countsAsEmailChannel(lead.emailVerification)) return true;
  return lead.source === 'shopify' && lead.contacts.some((c) => c.email !== null && countsAsEmailChannel(c.emailVerification));
}

export async function verifyLeadEmails(leads: readonly Lead[], verifier: EmailVerifier): Promise<void> {
  const addresses = leads.flatMap(addressesOf);
  if (addresses.length === 0) {
    for (const lead of leads) lead.emailVerification = null;
    return;
  }
  const verdicts = await verifier.verify(addresses);
  for (const lead of leads) applyVerdicts(lead, verdicts);
}

function keepsRow(request: GenerationRequest, row: ProviderLead): boolean {
  if (!(request.requiredChannels ?? []).includes('email')) return true;
  return hasVerifiedEmailChannel(row.lead);
}

/**
 * The provider with every page's addresses verified before the worker commits it. An upstream's
 * requiredChannels filter knows only that an address exists: rows whose email channel does not
 * take mail are dropped here, so they are neither delivered nor billed.
 */
export function withEmailVerification<S extends Lead['source']>(provider: LeadProvider<S>, verifier: EmailVerifier): LeadProvider<S> {
  return {
    source: provider.source,
    name: provider.name,
    async *search(request, context) {
      for await (const page of provider.search(request, context)) {
        await verifyLeadEmails(
          page.leads.map((row) => row.lead),
          verifier,
        );
        context.signal.throwIfAborted();
        const verified: ProviderPage = { leads: page.leads.filter((row) => keepsRow(request, row)), cursor: page.cursor };
        yield verified;
      }
    },
  };
}
