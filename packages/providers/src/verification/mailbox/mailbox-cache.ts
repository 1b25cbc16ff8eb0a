import { MAILBOX_VERDICTS, type MailboxVerdict } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import type { RedisClient } from '@leadgen/queue';

/** A mailbox verdict as the fleet shares it. */
export interface CachedMailboxVerdict {
  verdict: MailboxVerdict;
  reason: string;
  /** ISO time the engine answered */
  verdictAt: string;
}

/** Whether a domain accepts every recipient, as one probe found it. */
export interface CachedDomainVerdict {
  catchAll: boolean;
  reason: string;
  verdictAt: string;
}

export interface MailboxCacheOptions {
  redis: RedisClient;
  /** the key of an address's or a domain's verdict for one engine (RedisKeys' `key(...)`: decision 023) */
  key: (kind: 'mailbox' | 'maildomain', engine: string, name: string) => string;
  /** how long an address's verdict is kept */
  addressTtlSeconds: number;
  /** how long a domain's catch-all status is kept: one probe per domain per this */
  domainTtlSeconds: number;
}

/**
 * The fleet-wide cache of mailbox verdicts in Redis, per engine (two engines may disagree, and
 * switching engines should not serve the other's verdicts as its own): one plain string key per
 * address and per domain, GET and SET ... EX only, so it works unchanged on Redis Cluster.
 * `unknown` is never kept: it says nothing. Redis being away costs a call, never a verdict.
 */
export class MailboxCache {
  constructor(private readonly options: MailboxCacheOptions) {}

  async address(engine: string, address: string): Promise<CachedMailboxVerdict | null> {
    const parsed = await this.read(this.options.key('mailbox', engine, address.toLowerCase()));
    if (parsed === null || !MAILBOX_VERDICTS.includes(parsed.verdict as MailboxVerdict) || typeof parsed.verdictAt !== 'string')
      return null;
    return { verdict: parsed.verdict as MailboxVerdict, reason: String(parsed.reason ?? ''), verdictAt: parsed.verdictAt };
  }

  async domain(engine: string, domain: string): Promise<CachedDomainVerdict | null> {
    const parsed = await this.read(this.options.key('maildomain', engine, domain));
    if (parsed === null || typeof parsed.catchAll !== 'boolean' || typeof parsed.verdictAt !== 'string') return null;
    return { catchAll: parsed.catchAll, reason: String(parsed.reason ?? ''), verdictAt: parsed.verdictAt };
  }

  async setAddress(engine: string, address: string, value: CachedMailboxVerdict): Promise<void> {
    if (value.verdict === 'unknown') return;
    await this.write(this.options.key('mailbox', engine, address.toLowerCase()), value, this.options.addressTtlSeconds);
  }

  async setDomain(engine: string, domain: string, value: CachedDomainVerdict): Promise<void> {
    await this.write(this.options.key('maildomain', engine, domain), value, this.options.domainTtlSeconds);
  }

  private async read(key: string): Promise<Record<string, unknown> | null> {
    try {
      const raw = await this.options.redis.get(key);
      if (raw === null) return null;
      const parsed = JSON.parse(raw) as unknown;
      return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : null;
    } catch (error) {
      logger.warn('mailbox verdict cache read failed: asking the engine', { error });
      return null;
    }
  }

  private async write(key: string, value: object, ttlSeconds: number): Promise<void> {
    try {
      await this.options.redis.set(key, JSON.stringify(value), 'EX', Math.max(1, ttlSeconds));
    } catch (error) {
      logger.warn('mailbox verdict cache write failed', { error });
    }
  }
}
