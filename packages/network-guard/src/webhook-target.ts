import { promises as dns } from 'node:dns';
import { isForbiddenAddress } from './address-guard';
import { FetchError, resolveChecked, type LookupFn, type NetworkPolicy } from './safe-fetch';

// Webhook targets go through the crawler's SSRF guard (decision 016): a URL the account gives us is
// a third-party URL like a business's website, checked after our own DNS resolution.

export type ResolvedAddress = { address: string; family: 4 | 6 };

/**
 * Public addresses only, unless private networks are allowed; ports 80, 443 and the unprivileged
 * ones, so a POST can never be aimed at a mail or SSH server's well-known port.
 */
export function webhookNetworkPolicy(allowPrivateNetworks: boolean): NetworkPolicy {
  return allowPrivateNetworks
    ? { isForbiddenAddress: () => false, isAllowedPort: () => true }
    : { isForbiddenAddress, isAllowedPort: (port) => port === 80 || port === 443 || port >= 1024 };
}

export const systemLookup: LookupFn = async (hostname) =>
  (await dns.lookup(hostname, { all: true, verbatim: true })).map((entry) => ({
    address: entry.address,
    family: entry.family === 6 ? 6 : 4,
  }));

/**
 * The addresses a webhook to `url` may connect to, or a FetchError saying why none: a port or an
 * address the policy refuses (forbidden_port, forbidden_address), or a host that does not resolve.
 */
export async function resolveWebhookTarget(
  url: URL,
  options: { policy: NetworkPolicy; lookup?: LookupFn; signal?: AbortSignal },
): Promise<ResolvedAddress[]> {
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  if (!options.policy.isAllowedPort(port)) throw new FetchError('forbidden_port', `port ${port} is not allowed`);
  // A literal address is checked as it is; a name is resolved here, and the caller pins its socket to the answer.
  return resolveChecked(url, {
    policy: options.policy,
    lookup: options.lookup ?? systemLookup,
    signal: options.signal ?? new AbortController().signal,
  });
}
