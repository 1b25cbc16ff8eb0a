import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import type { Lead } from './lead';

/**
 * An account's suppression list: domains, emails and phone numbers it never wants delivered (nor
 * billed), in any job. Entries and leads are compared in one normal form, so `WWW.Acme.com`,
 * `https://acme.com/contact` and `acme.com` are one domain, and `(512) 555-0100` in a US job is
 * `+15125550100`.
 */
export const SUPPRESSION_KINDS = ['domain', 'email', 'phone'] as const;
export type SuppressionKind = (typeof SUPPRESSION_KINDS)[number];

export interface SuppressionEntry {
  kind: SuppressionKind;
  value: string;
}

/** At most this many entries in one upload (and one removal). */
export const SUPPRESSION_UPLOAD_LIMIT = 100_000;

const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/;

/** A bare host name, lower case, without `www.`; null when the text names no domain. */
export function normalizeDomain(text: string): string | null {
  let host = text.trim().toLowerCase();
  if (host.includes('/') || host.includes(':')) {
    try {
      host = new URL(host.includes('://') ? host : `http://${host}`).hostname;
    } catch {
      return null;
    }
  }
  host = host.replace(/\.$/, '').replace(/^www\./, '');
  return HOSTNAME.test(host) ? host : null;
}

/** An address in lower case; null when it is not one. */
export function normalizeEmail(text: string): string | null {
  const email = text.trim().toLowerCase();
  const at = email.lastIndexOf('@');
  if (at < 1 || /\s/.test(email)) return null;
  return normalizeDomain(email.slice(at + 1)) ? email : null;
}

/** E.164 (`+15125550100`); a number without a country code is read in `country` (the job's); null when not a number. */
export function normalizePhone(text: string, country?: string): string | null {
  const parsed = parsePhoneNumberFromString(text.trim(), country ? { defaultCountry: country.toUpperCase() as CountryCode } : undefined);
  return parsed?.isPossible() ? parsed.number : null;
}

export function normalizeSuppression(kind: SuppressionKind, value: string): string | null {
  if (kind === 'domain') return normalizeDomain(value);
  if (kind === 'email') return normalizeEmail(value);
  return normalizePhone(value);
}

/**
 * What of a lead a suppression entry can match: the domains of its website and of every email it
 * carries (its own and its contacts'), those emails, and its phone numbers, read in the job's country.
 */
export function suppressionKeysOf(lead: Lead, country: string): SuppressionEntry[] {
  const emails = [lead.email, ...('contacts' in lead ? lead.contacts.map((c) => c.email) : [])].filter((e): e is string => !!e);
  const phones = [lead.phone, ...('contacts' in lead ? lead.contacts.map((c) => c.phone) : [])].filter((p): p is string => !!p);
  const keys = new Map<string, SuppressionEntry>();
  const add = (kind: SuppressionKind, value: string | null) => {
    if (value) keys.set(`${kind}:${value}`, { kind, value });
  };
  add('domain', lead.website ? normalizeDomain(lead.website) : null);
  if ('store' in lead) add('domain', normalizeDomain(lead.store.domain));
  for (const email of emails) {
    const normalized = normalizeEmail(email);
    add('email', normalized);
    add('domain', normalized ? normalizeDomain(normalized.slice(normalized.lastIndexOf('@') + 1)) : null);
  }
  // An international number needs no parser to be E.164 (a page's worth of leads is read on every commit).
  for (const phone of phones) add('phone', /^\s*\+/.test(phone) ? `+${phone.replace(/\D/g, '')}` : normalizePhone(phone, country));
  return [...keys.values()];
}
