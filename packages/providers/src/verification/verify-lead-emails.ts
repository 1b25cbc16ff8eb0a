import {
  countsAsEmailChannel,
  emailRank,
  mayBeLeadEmail,
  type EmailVerification,
  type GenerationRequest,
  type Lead,
} from '@leadgen/domain';
import type { LeadProvider, ProviderLead, ProviderPage } from '../lead-provider';
import type { EmailVerifier } from './email-verifier';

function addressesOf(lead: Lead): string[] {
  const found = lead.email === null ? [] : [lead.email];
  if (lead.source === 'shopify') for (const c of lead.contacts) if (c.email !== null) found.push(c.email);
  return found;
}

/**
 * Writes each address's verdict beside it and makes the lead's `email` the best address it carries
 * (decision 034): deliverable, then catch-all, then unknown (within each, a domain known to take
 * mail first); the lead's own address wins a tie, then the upstream's order. An address whose
 * domain takes no mail, a malformed, disposable, undeliverable or risky one is never the lead's
 * `email`: with nothing else, it is null. Contacts keep their own addresses, each with its verdict.
 */
export function applyVerdicts(lead: Lead, verdicts: ReadonlyMap<string, EmailVerification>): void {
  if (lead.source === 'shopify') {
    for (const contact of lead.contacts) contact.emailVerification = contact.email === null ? null : (verdicts.get(contact.email) ?? null);
  }
  const own = lead.email === null ? undefined : verdicts.get(lead.email);
  const candidates: Array<{ email: string; verification: EmailVerification }> = [];
  if (lead.email !== null && own && mayBeLeadEmail(own)) candidates.push({ email: lead.email, verification: own });
  if (lead.source === 'shopify') {
    for (const c of lead.contacts)
      if (c.email !== null && c.emailVerification && mayBeLeadEmail(c.emailVerification))
        candidates.push({ email: c.email, verification: c.emailVerification });
  }
  // A stable sort: among equals, the lead's own address, then the upstream's order, stands.
  const best = candidates.sort((a, b) => emailRank(a.verification) - emailRank(b.verification))[0];
  lead.email = best?.email ?? null;
  lead.emailVerification = best?.verification ?? null;
}

/** The email channel as shopify's requiredChannels counts it (countsAsEmailChannel: deliverable or catch-all; DNS's rule where unknown). */
export function hasVerifiedEmailChannel(lead: Lead): boolean {
  if (countsAsEmailChannel(lead.emailVerification)) return true;
  return lead.source === 'shopify' && lead.contacts.some((c) => c.email !== null && countsAsEmailChannel(c.emailVerification));
}

export async function verifyLeadEmails(
  leads: readonly Lead[],
  verifier: EmailVerifier,
  job?: { signal: AbortSignal; deadline: number },
): Promise<void> {
  const addresses = leads.flatMap(addressesOf);
  if (addresses.length === 0) {
    for (const lead of leads) lead.emailVerification = null;
    return;
  }
  const verdicts = await verifier.verify(addresses, job);
  for (const lead of leads) applyVerdicts(lead, verdicts);
}

function keepsRow(request: GenerationRequest, row: ProviderLead): boolean {
  if (!(request.requiredChannels ?? []).includes('email')) return true;
  return hasVerifiedEmailChannel(row.lead);
}

/**
 * The provider with every page's addresses verified before the worker commits it. An upstream's
 * requiredChannels filter knows only that an address exists: rows whose email channel does not
 * take mail are dropped here, so they are neither delivered nor billed. The mailbox stage gets the
 * job's signal and deadline: it never holds the page past them.
 *
 * While a page is verified, the next one is already being fetched (and its websites crawled), but
 * only when the job is sure to ask for it: the pages handed over so far and this one hold fewer
 * leads than the request's maxResults. So verification adds to a job's time only what outlasts the
 * next page, and never costs an upstream page the job would not have fetched.
 */
export function withEmailVerification<S extends Lead['source']>(provider: LeadProvider<S>, verifier: EmailVerifier): LeadProvider<S> {
  return {
    source: provider.source,
    name: provider.name,
    async *search(request, context) {
      const pages = provider.search(request, context)[Symbol.asyncIterator]();
      // A read-ahead that fails while this page is verified is rethrown when its turn comes.
      const ahead = () => {
        const next = pages.next();
        next.catch(() => undefined);
        return next;
      };
      let next = ahead();
      let handedOver = 0;
      try {
        for (;;) {
          const step = await next;
          if (step.done) return;
          const page = step.value;
          const readAhead = handedOver + page.leads.length < request.maxResults;
          if (readAhead) next = ahead();
          await verifyLeadEmails(
            page.leads.map((row) => row.lead),
            verifier,
            { signal: context.signal, deadline: context.deadline },
          );
          context.signal.throwIfAborted();
          const verified: ProviderPage = { ...page, leads: page.leads.filter((row) => keepsRow(request, row)) };
          handedOver += verified.leads.length;
          yield verified;
          if (!readAhead) next = ahead();
        }
      } finally {
        await pages.return?.(undefined);
      }
    },
  };
}
