import {
  countsAsEmailChannel,
  emailRank,
  mayBeLeadEmail,
  type EmailVerification,
  type GenerationRequest,
  type Lead,
} from '@leadgen/domain';
import type { LeadFinisher, LeadProvider, ProviderLead, ProviderPage } from '../lead-provider';
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
  // A filter's requireEmail holds after verification too: an address verification took away is no email (decision 038).
  if ((request.filters as { requireEmail?: true } | undefined)?.requireEmail && row.lead.email === null) return false;
  if (!(request.requiredChannels ?? []).includes('email')) return true;
  return hasVerifiedEmailChannel(row.lead);
}

/**
 * The provider with every lead's addresses verified before the worker commits it: each page's `finish` (the
 * adapter's own, then the verdicts). An upstream's requiredChannels filter knows only that an address exists:
 * rows whose email channel does not take mail are dropped here, so they are neither delivered nor billed. The
 * mailbox stage gets the job's signal and deadline: it never holds the lead past them. The worker runs a lead's
 * finish while it already asks for later pages (decision 037), so verification adds to a job's time only what
 * outlasts the lead's own website.
 */
export function withEmailVerification<S extends Lead['source']>(provider: LeadProvider<S>, verifier: EmailVerifier): LeadProvider<S> {
  return {
    source: provider.source,
    name: provider.name,
    async *search(request, context) {
      for await (const page of provider.search(request, context)) {
        const inner = page.finish;
        const job = { signal: context.signal, deadline: context.deadline };
        // Without a step of the adapter's own (linkedin, the sandbox), the page's addresses are verified together
        // when its first lead is asked for, as one batch (a domain looked up once); otherwise each lead's after its
        // website was read, so a slow site holds only its own lead.
        let wholePage: Promise<void> | null = null;
        const finish: LeadFinisher = async (row, signal) => {
          if (inner) {
            if (!(await inner(row, signal))) return false;
            await verifyLeadEmails([row.lead], verifier, { signal, deadline: context.deadline });
          } else {
            wholePage ??= verifyLeadEmails(
              page.leads.map((r) => r.lead),
              verifier,
              job,
            );
            await wholePage;
          }
          signal.throwIfAborted();
          return keepsRow(request, row);
        };
        // Rows a filter left out here are dropped by their finish, which the worker counts with the adapter's own
        // (skipped.filtered, decision 038).
        // The rest of the page (its cursor, filtered count, an area tile's report) passes through as it is.
        yield { ...page, finish } satisfies ProviderPage;
      }
    },
  };
}
