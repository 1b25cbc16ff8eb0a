import type { MailboxVerdict } from '@leadgen/domain';
import { SANDBOX_UNKNOWN_ZONE } from '../sandbox-mail-rule';
import type { EngineAnswer, MailboxEngine } from './engine';

/** Domains under these hold mailboxes that answer as their name says (docs/api.md, "Email verification"). */
export const SANDBOX_MAILBOX_ZONES = {
  catch_all: 'catch-all.example',
  undeliverable: 'no-mailbox.example',
  risky: 'full-inbox.example',
} as const satisfies Partial<Record<MailboxVerdict, string>>;

/**
 * The sandbox's mailbox engine: what a self-hosted Reacher would answer about the sandbox's `.example` addresses,
 * decided by a rule instead of an SMTP conversation (`.example` never resolves, RFC 2606), in this process, with no
 * call leaving it. It runs behind the same MailboxStage as a real engine (its budget, its in-flight dedup, the
 * domain's first probe alone, catch-all settling the rest), so a sandbox job takes the verification path a live
 * one does; its verdicts say `engine: "sandbox"`. Its reasons are Reacher's words for the same finding.
 */
export function createSandboxMailboxEngine(): MailboxEngine {
  return {
    name: 'sandbox',
    check(address) {
      const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
      return Promise.resolve(sandboxMailboxAnswer(domain));
    },
  };
}

function sandboxMailboxAnswer(domain: string): EngineAnswer {
  const under = (zone: string) => domain === zone || domain.endsWith(`.${zone}`);
  if (under(SANDBOX_MAILBOX_ZONES.catch_all))
    return { verdict: 'catch_all', reason: 'is_reachable=risky; is_catch_all', catchAllDomain: true };
  if (under(SANDBOX_MAILBOX_ZONES.undeliverable))
    return { verdict: 'undeliverable', reason: 'is_reachable=invalid', catchAllDomain: false };
  if (under(SANDBOX_MAILBOX_ZONES.risky)) return { verdict: 'risky', reason: 'is_reachable=risky; has_full_inbox', catchAllDomain: false };
  // a domain whose DNS did not answer: its mail server is not reached either
  if (under(SANDBOX_UNKNOWN_ZONE) || !domain.endsWith('.example'))
    return { verdict: 'unknown', reason: 'is_reachable=unknown; smtp unreachable', catchAllDomain: null };
  return { verdict: 'deliverable', reason: 'is_reachable=safe', catchAllDomain: false };
}
