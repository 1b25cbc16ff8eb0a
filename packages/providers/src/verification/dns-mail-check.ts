import { promises as dns } from 'node:dns';
import type { MailStatus } from '@leadgen/domain';

/** What DNS says about one domain's mail, and for how long the answer may be kept (null: the record's TTL is not known). */
export interface DomainMailAnswer {
  status: MailStatus;
  /** why, for logs and tests: mx, null_mx, address_fallback, nxdomain, no_records, timeout, servfail, dns_error */
  basis: string;
  ttlSeconds: number | null;
}

export interface DnsMailCheckOptions {
  /** `host` or `host:port` entries; empty: the system's resolvers */
  servers: readonly string[];
  /** per query try, in milliseconds */
  timeoutMs: number;
  /** tries per query (c-ares resends after each timeout) */
  tries?: number;
}

export type DomainMailCheck = (asciiDomain: string) => Promise<DomainMailAnswer>;

function code(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : '';
}

// The domain or the record type is absent: authoritative answers, not failures.
const NO_DOMAIN = new Set<string>([dns.NOTFOUND]);
const NO_RECORDS = new Set<string>([dns.NODATA]);

function unknown(error: unknown): DomainMailAnswer {
  const c = code(error);
  const basis = c === dns.TIMEOUT ? 'timeout' : c === dns.SERVFAIL ? 'servfail' : 'dns_error';
  return { status: 'unknown', basis, ttlSeconds: null };
}

/**
 * RFC 5321 §5.1 as a sender applies it, from DNS only: MX records that are not a null MX (RFC 7505:
 * one MX of preference 0 and exchange ".") take mail; with no MX at all, the domain's own A/AAAA
 * address is the implicit MX. A name that does not exist, a null MX, or neither record: no mail.
 * A timeout or SERVFAIL says nothing about the domain: unknown, never cached as a verdict.
 */
export function createDnsMailCheck(options: DnsMailCheckOptions): DomainMailCheck {
  const resolver = new dns.Resolver({ timeout: options.timeoutMs, tries: options.tries ?? 2 });
  if (options.servers.length > 0) resolver.setServers([...options.servers]);

  const addresses = async (domain: string): Promise<DomainMailAnswer> => {
    const settled = await Promise.allSettled([resolver.resolve4(domain, { ttl: true }), resolver.resolve6(domain, { ttl: true })]);
    const found = settled.flatMap((s) => (s.status === 'fulfilled' ? s.value : []));
    if (found.length > 0) return { status: 'accepts_mail', basis: 'address_fallback', ttlSeconds: Math.min(...found.map((r) => r.ttl)) };
    const failure = settled.find((s) => s.status === 'rejected' && !NO_RECORDS.has(code(s.reason)) && !NO_DOMAIN.has(code(s.reason)));
    if (failure?.status === 'rejected') return unknown(failure.reason);
    return { status: 'no_mail', basis: 'no_records', ttlSeconds: null };
  };

  return async (domain) => {
    let mx: Array<{ exchange: string; priority: number }>;
    try {
      mx = await resolver.resolveMx(domain);
    } catch (error) {
      if (NO_DOMAIN.has(code(error))) return { status: 'no_mail', basis: 'nxdomain', ttlSeconds: null };
      if (NO_RECORDS.has(code(error))) return addresses(domain);
      return unknown(error);
    }
    // c-ares writes the root name "." as ''.
    const real = mx.filter((r) => r.exchange !== '' && r.exchange !== '.');
    if (real.length > 0) return { status: 'accepts_mail', basis: 'mx', ttlSeconds: null };
    if (mx.length > 0) return { status: 'no_mail', basis: 'null_mx', ttlSeconds: null };
    return addresses(domain);
  };
}
