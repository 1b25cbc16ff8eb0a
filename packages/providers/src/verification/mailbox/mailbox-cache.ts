import { randomUUID } from 'node:crypto';
import { MAILBOX_VERDICTS, type MailboxVerdict } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { runScript, type RedisClient, type RedisScript } from '@leadgen/queue';

// Deletes the probe's lease only while it holds this worker's token (one key: Redis Cluster-safe).
/** Deletes a lease only while it holds this token (one key: one slot, so it runs unchanged on Redis Cluster). */
const RELEASE_IF_OURS: RedisScript = {
  name: 'releaseLeaseIfOurs',
  keys: 1,
  lua: `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`,
};

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
  /** the key of an address's or a domain's verdict for one engine, or of a domain's probe in flight (RedisKeys' `key(...)`: decision 023) */
  key: (kind: 'mailbox' | 'maildomain' | 'maildomainprobe', engine: string, name: string) => string;
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

  /**
   * Takes a new domain's first probe for this worker, fleet-wide (SET NX PX: one plain key, so it works on Redis
   * Cluster), for `ms` at most: `taken` with the token to give it back, `held` when another worker (or another
   * page of this one) is probing the domain now. Redis being away answers `taken`: each worker probes, as before.
   */
  async claimDomainProbe(engine: string, domain: string, ms: number): Promise<{ taken: true; token: string } | { taken: false }> {
    const token = randomUUID();
    try {
      const set = await this.options.redis.set(this.options.key('maildomainprobe', engine, domain), token, 'PX', Math.max(1, ms), 'NX');
      return set === 'OK' ? { taken: true, token } : { taken: false };
    } catch (error) {
      logger.warn('mailbox probe lease failed: probing without it', { error });
      return { taken: true, token };
    }
  }

  /** Gives a probe back (only if it is still this token's: a lease that ran out may be another worker's now). */
  async releaseDomainProbe(engine: string, domain: string, token: string): Promise<void> {
    try {
      await runScript(this.options.redis, RELEASE_IF_OURS, [this.options.key('maildomainprobe', engine, domain)], [token]);
    } catch (error) {
      logger.warn('mailbox probe lease not given back: it runs out by itself', { error });
    }
  }

  /** Whether another worker's probe of the domain is still in flight. */
  async domainProbeHeld(engine: string, domain: string): Promise<boolean> {
    try {
      return (await this.options.redis.exists(this.options.key('maildomainprobe', engine, domain))) === 1;
    } catch {
      return false;
    }
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
