import pLimit from 'p-limit';
import { MAIL_STATUSES, type EmailVerification, type MailboxVerdict, type MailStatus } from '@leadgen/domain';
import { metrics } from '@leadgen/ops';
import type { DomainMailAnswer, DomainMailCheck } from './dns-mail-check';
import { parseEmail } from './email-checks';
import type { MailboxResult, MailboxStage } from './mailbox';
import type { VerdictCache } from './verdict-cache';

/** Verdicts for a batch of addresses (a page's leads and contacts), keyed by the address as given. */
export interface EmailVerifier {
  /**
   * `signal` and `deadline` (epoch ms) are the job's: the mailbox stage returns by then (what is
   * late is `unknown`) and stops when the signal aborts. Without them, no mailbox stage runs.
   */
  verify(addresses: readonly string[], job?: { signal: AbortSignal; deadline: number }): Promise<Map<string, EmailVerification>>;
}

export interface EmailVerifierOptions {
  /** the DNS question, or the sandbox's rule */
  check: DomainMailCheck;
  /** null: no fleet-wide cache (the sandbox) */
  cache: VerdictCache | null;
  /** DNS lookups in flight at once in this process */
  concurrency: number;
  /** the mailbox-level engine after the DNS gate (EMAIL_VERIFIER); null: DNS gives the verdicts */
  mailbox?: MailboxStage | null;
  now?: () => Date;
}

interface DomainVerdict {
  status: MailStatus;
  checkedAt: string;
}

/**
 * One verifier per worker process: its concurrency limit and its in-flight map are shared by every
 * job the process runs, so 25 leads on one domain, or two jobs asking at once, cost one lookup.
 */
export function createEmailVerifier(options: EmailVerifierOptions): EmailVerifier {
  const limit = pLimit(Math.max(1, options.concurrency));
  const now = options.now ?? (() => new Date());
  const inFlight = new Map<string, Promise<DomainVerdict>>();

  const lookUp = async (domain: string): Promise<DomainVerdict> => {
    const cached = options.cache ? await options.cache.get(domain) : null;
    if (options.cache) metrics.emailVerdictCache.inc({ result: cached ? 'hit' : 'miss' });
    if (cached) return cached;
    const answer: DomainMailAnswer = await limit(() => options.check(domain));
    metrics.emailDomainLookups.inc({ outcome: answer.basis });
    const checkedAt = now().toISOString();
    await options.cache?.set(domain, answer, checkedAt);
    return { status: answer.status, checkedAt };
  };

  const domainVerdict = (domain: string): Promise<DomainVerdict> => {
    let pending = inFlight.get(domain);
    if (!pending) {
      pending = lookUp(domain).finally(() => inFlight.delete(domain));
      inFlight.set(domain, pending);
    }
    return pending;
  };

  return {
    async verify(addresses, job) {
      const parsed = [...new Set(addresses)].map(parseEmail);
      const domains = [...new Set(parsed.filter((p) => p.checks.syntax).map((p) => p.asciiDomain))];
      const verdicts = new Map(await Promise.all(domains.map(async (d) => [d, await domainVerdict(d)] as const)));
      // DNS is the first gate: an address whose domain takes no mail, a malformed or a disposable
      // one (never a lead's email) is never sent to a mailbox engine, which may bill per call.
      const mailbox = options.mailbox && job ? options.mailbox : null;
      const targets = mailbox
        ? parsed.filter((p) => p.checks.syntax && !p.checks.disposable && verdicts.get(p.asciiDomain)?.status !== 'no_mail')
        : [];
      const mailboxVerdicts: Map<string, MailboxResult> =
        mailbox && job && targets.length > 0
          ? await mailbox.verify(
              targets.map((p) => ({ address: p.address, domain: p.asciiDomain })),
              job.signal,
              job.deadline,
            )
          : new Map();
      const result = new Map<string, EmailVerification>();
      const byStatus: Record<MailStatus, number> = { accepts_mail: 0, no_mail: 0, unknown: 0 };
      const byVerdict = new Map<string, number>();
      const checkedNow = now().toISOString();
      for (const p of parsed) {
        // A malformed address names no domain to ask about: no mail can reach it.
        const verdict = p.checks.syntax ? verdicts.get(p.asciiDomain) : undefined;
        const status = verdict?.status ?? 'no_mail';
        const checkedAt = verdict?.checkedAt ?? checkedNow;
        const fromEngine = mailboxVerdicts.get(p.address);
        const mailboxVerdict: MailboxResult = fromEngine ?? {
          // DNS alone can refuse an address, never vouch for its mailbox.
          verdict: (status === 'no_mail' ? 'undeliverable' : 'unknown') satisfies MailboxVerdict,
          reason: p.checks.syntax ? status : 'syntax',
          engine: 'dns',
          verdictAt: checkedAt,
        };
        const verification: EmailVerification = {
          status,
          checks: p.checks,
          checkedAt,
          verdict: mailboxVerdict.verdict,
          engine: mailboxVerdict.engine,
          verdictAt: mailboxVerdict.verdictAt,
          reason: mailboxVerdict.reason,
        };
        byStatus[status] += 1;
        const label = `${mailboxVerdict.engine}:${mailboxVerdict.verdict}`;
        byVerdict.set(label, (byVerdict.get(label) ?? 0) + 1);
        result.set(p.address, verification);
      }
      // One counter update per status and batch, not per address: this runs on every page.
      for (const status of MAIL_STATUSES) if (byStatus[status] > 0) metrics.emailVerdicts.inc({ status }, byStatus[status]);
      for (const [label, n] of byVerdict) {
        const [engine, verdict] = label.split(':') as [string, string];
        metrics.emailMailboxVerdicts.inc({ engine, verdict }, n);
      }
      // Keyed by the untrimmed form too, so a caller finds what it passed in.
      for (const raw of addresses) if (!result.has(raw)) result.set(raw, result.get(raw.trim())!);
      return result;
    },
  };
}
