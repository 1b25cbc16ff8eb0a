import { domainToASCII } from 'node:url';
import type { EmailChecks } from '@leadgen/domain';
import disposableDomains from 'disposable-email-domains/index.json';
import disposableWildcards from 'disposable-email-domains/wildcard.json';
import freeProviderDomains from 'email-providers/all.json';
import rolePrefixes from 'role-based-email-addresses';

/** An address taken apart: its ASCII domain (punycode for IDN) is what DNS is asked about. */
export interface ParsedEmail {
  /** the address as given, trimmed */
  address: string;
  local: string;
  /** lower-case ASCII (A-labels); '' when the domain is not a host name */
  asciiDomain: string;
  checks: EmailChecks;
}

// Kept lists, loaded once per process on first use (the disposable list is about 120,000 domains).
let lists: { disposable: Set<string>; disposableWildcards: Set<string>; free: Set<string>; roles: Set<string> } | null = null;
function keptLists() {
  lists ??= {
    disposable: new Set(disposableDomains),
    disposableWildcards: new Set(disposableWildcards),
    free: new Set(freeProviderDomains),
    roles: new Set(rolePrefixes.map((p) => p.toLowerCase())),
  };
  return lists;
}

// RFC 5322 dot-atom: atext runs separated by single dots; RFC 6531 (SMTPUTF8) adds non-ASCII letters.
const DOT_ATOM = /^[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+)*$/u;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** The domain as DNS knows it, or '' when it is not a host name a mail system would accept. */
export function asciiHostName(domain: string): string {
  const trimmed = domain.trim().replace(/\.$/, '');
  if (trimmed === '' || /[\s@]/.test(trimmed)) return '';
  const ascii = domainToASCII(trimmed).toLowerCase();
  if (ascii === '' || ascii.length > 253) return '';
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return '';
  // A numeric top-level label is an IP address or a typo, never a mail domain.
  return /^\d+$/.test(labels[labels.length - 1]!) ? '' : ascii;
}

function isDisposable(domain: string): boolean {
  const { disposable, disposableWildcards: wildcards } = keptLists();
  if (disposable.has(domain)) return true;
  // The wildcard list names domains whose every subdomain is disposable too: each parent is looked up.
  for (let dot = domain.indexOf('.'); dot !== -1; dot = domain.indexOf('.', dot + 1)) if (wildcards.has(domain.slice(dot + 1))) return true;
  return wildcards.has(domain);
}

/** Parses an address and runs the checks that need no network. */
export function parseEmail(raw: string): ParsedEmail {
  const address = raw.trim();
  const at = address.lastIndexOf('@');
  const local = at > 0 ? address.slice(0, at) : '';
  const asciiDomain = at > 0 ? asciiHostName(address.slice(at + 1)) : '';
  const syntax = asciiDomain !== '' && local.length <= 64 && DOT_ATOM.test(local) && local.length + 1 + asciiDomain.length <= 254;
  if (asciiDomain === '')
    return { address, local, asciiDomain, checks: { syntax: false, disposable: false, freeProvider: false, roleAccount: false } };
  const { free, roles } = keptLists();
  // sales+eu@ is still sales@: the role is read before a sub-address tag.
  const role = local.toLowerCase().split('+')[0] ?? '';
  return {
    address,
    local,
    asciiDomain,
    checks: { syntax, disposable: isDisposable(asciiDomain), freeProvider: free.has(asciiDomain), roleAccount: roles.has(role) },
  };
}
