import type { RedisClient } from '@leadgen/queue';
import type { MailStatus } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import type { DomainMailAnswer } from './dns-mail-check';

/** A domain's verdict as every worker of the fleet shares it. */
export interface CachedVerdict {
  status: MailStatus;
  basis: string;
  /** ISO time of the DNS answer */
  checkedAt: string;
}

export interface VerdictCacheOptions {
  redis: RedisClient;
  /** a domain's key (RedisKeys' `key('mailverdict', domain)`: decision 023); one key per domain */
  key: (domain: string) => string;
  /** no verdict is kept for less (a record with TTL 0 would otherwise cost a lookup per lead) */
  floorSeconds: number;
  /** nor for longer (a domain that changes its mail setup is seen again within this) */
  ceilingSeconds: number;
}

// Node's resolver gives TTLs for A/AAAA answers only; an MX answer and a negative answer (RFC 2308
// would read the SOA minimum) are kept for these typical values, then bounded like any other.
export const UNKNOWN_TTL_SECONDS = { positive: 3_600, negative: 900 } as const;

/**
 * The fleet-wide cache of domain verdicts in Redis: one plain string key per domain, read with GET
 * and written with SET ... EX, single-key commands only, so it works unchanged on Redis Cluster.
 * `unknown` is never kept: it says nothing about the domain. Redis being away costs a lookup, never
 * a verdict: every failure here is logged and read as a miss.
 */
export class VerdictCache {
  constructor(private readonly options: VerdictCacheOptions) {}

  ttlFor(answer: DomainMailAnswer): number {
    const { floorSeconds, ceilingSeconds } = this.options;
    const raw = answer.ttlSeconds ?? (answer.status === 'accepts_mail' ? UNKNOWN_TTL_SECONDS.positive : UNKNOWN_TTL_SECONDS.negative);
    return Math.min(ceilingSeconds, Math.max(floorSeconds, raw));
  }

  async get(domain: string): Promise<CachedVerdict | null> {
    try {
      const raw = await this.options.redis.get(this.options.key(domain));
      if (raw === null) return null;
      const parsed = JSON.parse(raw) as Partial<CachedVerdict>;
      if ((parsed.status !== 'accepts_mail' && parsed.status !== 'no_mail') || typeof parsed.checkedAt !== 'string') return null;
      return { status: parsed.status, basis: String(parsed.basis ?? ''), checkedAt: parsed.checkedAt };
    } catch (error) {
      logger.warn('mail verdict cache read failed: looking the domain up', { error });
      return null;
    }
  }

  async set(domain: string, answer: DomainMailAnswer, checkedAt: string): Promise<void> {
    if (answer.status === 'unknown') return;
    const value: CachedVerdict = { status: answer.status, basis: answer.basis, checkedAt };
    try {
      await this.options.redis.set(this.options.key(domain), JSON.stringify(value), 'EX', this.ttlFor(answer));
    } catch (error) {
      logger.warn('mail verdict cache write failed', { error });
    }
  }
}
