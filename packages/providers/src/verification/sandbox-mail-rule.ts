import type { DomainMailAnswer } from './dns-mail-check';

/** Domains under these answer as their name says (docs/api.md, "Email verification in the sandbox"). */
export const SANDBOX_NO_MAIL_ZONE = 'no-mail.example';
export const SANDBOX_UNKNOWN_ZONE = 'dns-timeout.example';

/**
 * The sandbox's stand-in for DNS: `.example` (RFC 2606) never resolves, so its domains are read by
 * a rule instead of a lookup. Under `no-mail.example`: no_mail; under `dns-timeout.example`:
 * unknown; any other `.example` domain takes mail. A domain outside `.example` is never looked up
 * by the sandbox: unknown.
 */
export function sandboxMailAnswer(asciiDomain: string): Promise<DomainMailAnswer> {
  const under = (zone: string) => asciiDomain === zone || asciiDomain.endsWith(`.${zone}`);
  if (under(SANDBOX_NO_MAIL_ZONE)) return Promise.resolve({ status: 'no_mail', basis: 'sandbox_rule', ttlSeconds: null });
  if (under(SANDBOX_UNKNOWN_ZONE)) return Promise.resolve({ status: 'unknown', basis: 'sandbox_rule', ttlSeconds: null });
  if (asciiDomain.endsWith('.example')) return Promise.resolve({ status: 'accepts_mail', basis: 'sandbox_rule', ttlSeconds: null });
  return Promise.resolve({ status: 'unknown', basis: 'sandbox_rule', ttlSeconds: null });
}
