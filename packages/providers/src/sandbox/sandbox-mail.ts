import type { Lead, SandboxMail } from '@leadgen/domain';
import type { ProviderLead } from '../lead-provider';
import { SANDBOX_MAILBOX_ZONES } from '../verification/mailbox/sandbox-engine';
import { SANDBOX_NO_MAIL_ZONE, SANDBOX_UNKNOWN_ZONE } from '../verification/sandbox-mail-rule';

const IN_TURN = ['accepts_mail', 'no_mail', 'unknown'] as const;
const ZONE: Record<Exclude<SandboxMail, 'accepts_mail' | 'mixed'>, string> = {
  no_mail: SANDBOX_NO_MAIL_ZONE,
  unknown: SANDBOX_UNKNOWN_ZONE,
  ...SANDBOX_MAILBOX_ZONES,
};

function moved(email: string | null, status: Exclude<SandboxMail, 'mixed'>): string | null {
  if (email === null || status === 'accepts_mail') return email;
  // shop.example → shop.no-mail.example: the sandbox rule (DNS) or its mailbox engine then gives the asked-for verdict.
  return email.replace(/\.example$/, `.${ZONE[status]}`);
}

/**
 * `sandbox:mail=STATUS` puts a page's addresses on sandbox domains whose verdict is STATUS (`mixed`:
 * by the lead's position in the result list, accepts_mail, no_mail, unknown in turn), so a consumer
 * can build against every verdict. The upstream still counts such stores as having an email; the
 * verification step downstream decides, as it does for a real upstream.
 */
export function steerMail(leads: ProviderLead[], mail: SandboxMail | undefined, firstPosition: number): void {
  if (mail === undefined || mail === 'accepts_mail') return;
  leads.forEach(({ lead }: { lead: Lead }, i) => {
    const status = mail === 'mixed' ? IN_TURN[(firstPosition + i) % IN_TURN.length]! : mail;
    lead.email = moved(lead.email, status);
    if (lead.source === 'shopify') for (const contact of lead.contacts) contact.email = moved(contact.email, status);
  });
}
