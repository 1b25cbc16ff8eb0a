import { Resolver } from 'node:dns/promises';
import type { Config } from '@leadgen/config';
import { DOMAIN_PROOF, type ObjectionProof } from '@leadgen/domain';
import { safeFetch, webhookNetworkPolicy, type LookupFn } from '@leadgen/network-guard';

const DNS_TIMEOUT_MS = 3_000;
const FETCH_TIMEOUT_MS = 5_000;

/**
 * Where a domain's file is read: port 80, as certificate authorities read it. OBJECTION_WELL_KNOWN_PORT moves it
 * for tests only: production ignores it, since whoever runs another port of a shared host does not control the domain.
 */
export function wellKnownUrl(config: Config, domain: string): string {
  const port = config.env === 'production' ? 80 : config.objections.wellKnownPort;
  return `http://${domain}${port === 80 ? '' : `:${port}`}${DOMAIN_PROOF.wellKnownPath}`;
}

/** Whether a domain shows the token the service issued: which proof did, or null. */
export type DomainControlCheck = (domain: string, token: string) => Promise<Extract<ObjectionProof, 'dns_txt' | 'well_known'> | null>;

/**
 * Control of a domain, checked as certificate authorities do (RFC 8555 §8.4 dns-01, §8.3 http-01): a TXT
 * record `_leadgen-objection.<domain>` holding `leadgen-objection=<token>`, or the file
 * `http://<domain>/.well-known/leadgen-objection.txt` holding the token. Names are resolved by the resolvers
 * DNS_SERVERS configures (the system's when unset), and the website is read through the network guard: only
 * public addresses unless ENRICHMENT_ALLOW_PRIVATE_NETWORKS, the socket pinned to the checked address, a few
 * redirects (to https too), a kilobyte at most.
 */
export function createDomainControlCheck(config: Config): DomainControlCheck {
  const resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: 2 });
  if (config.verification.dnsServers.length > 0) resolver.setServers([...config.verification.dnsServers]);
  const lookup: LookupFn = async (hostname) => {
    const [v4, v6] = await Promise.all([
      resolver.resolve4(hostname).catch(() => [] as string[]),
      resolver.resolve6(hostname).catch(() => [] as string[]),
    ]);
    return [...v4.map((address) => ({ address, family: 4 as const })), ...v6.map((address) => ({ address, family: 6 as const }))];
  };
  const policy = webhookNetworkPolicy(config.enrichment.allowPrivateNetworks);

  const txtShows = async (domain: string, token: string): Promise<boolean> => {
    const records = await resolver.resolveTxt(`${DOMAIN_PROOF.txtLabel}.${domain}`).catch(() => [] as string[][]);
    // A TXT record may be split in character-strings of 255 bytes: they are one value (RFC 7208 §3.3 does the same).
    return records.some((chunks) => chunks.join('').trim() === `${DOMAIN_PROOF.txtPrefix}${token}`);
  };
  const fileShows = async (domain: string, token: string): Promise<boolean> => {
    try {
      const response = await safeFetch(wellKnownUrl(config, domain), {
        policy,
        lookup,
        userAgent: config.enrichment.userAgent,
        accept: 'text/plain',
        maxBytes: 1024,
        maxRedirects: 3,
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
        wantsBody: () => true,
      });
      return response.status === 200 && (response.body ?? '').trim() === token;
    } catch {
      return false;
    }
  };

  return async (domain, token) => {
    const [txt, file] = await Promise.all([txtShows(domain, token), fileShows(domain, token)]);
    return txt ? 'dns_txt' : file ? 'well_known' : null;
  };
}
