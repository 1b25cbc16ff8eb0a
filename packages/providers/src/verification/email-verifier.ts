import pLimit from 'p-limit';
import { MAIL_STATUSES, type EmailVerification, type MailStatus } from '@leadgen/domain';
import { metrics } from '@leadgen/ops';
import type { DomainMailAnswer, DomainMailCheck } from './dns-mail-check';
import { parseEmail } from './email-checks';
import type { VerdictCache } from './verdict-cache';

/** Verdicts for a batch of addresses (a page's leads and contacts), keyed by the address as given. */
export interface EmailVerifier {
  verify(addresses: readonly string[]): Promise<Map<string, EmailVerification>>;
}

export interface EmailVerifierOptions {
  /** the DNS question, or the sandbox's rule */
  check: DomainMailCheck;
  /** null: no fleet-wide cache (the sandbox) */
  cache: VerdictCache | null;
  /** DNS lookups in flight at once in this process */
  concurrency: number;
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
    async verify(addresses) {
      const parsed = [...new Set(addresses)].map(parseEmail);
      const domains = [...new Set(parsed.filter((p) => p.checks.syntax).map((p) => p.asciiDomain))];
      const verdicts = new Map(await Promise.all(domains.map(async (d) => [d, await domainVerdict(d)] as const)));
      const result = new Map<string, EmailVerification>();
      const byStatus: Record<MailStatus, number> = { accepts_mail: 0, no_mail: 0, unknown: 0 };
      const checkedNow = now().toISOString();
      for (const p of parsed) {
        // A malformed address names no domain to ask about: no mail can reach it.
        const verdict = p.checks.syntax ? verdicts.get(p.asciiDomain) : undefined;
        const verification: EmailVerification = {
          status: verdict?.status ?? 'no_mail',
          checks: p.checks,
          checkedAt: verdict?.checkedAt ?? checkedNow,
        };
        byStatus[verification.status] += 1;
        result.set(p.address, verification);
      }
      // One counter update per status and batch, not per address: this runs on every page.
      for (const status of MAIL_STATUSES) if (byStatus[status] > 0) metrics.emailVerdicts.inc({ status }, byStatus[status]);
      // Keyed by the untrimmed form too, so a caller finds what it passed in.
      for (const raw of addresses) if (!result.has(raw)) result.set(raw, result.get(raw.trim())!);
      return result;
    },
  };
}
