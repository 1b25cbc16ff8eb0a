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

/**
 * What an operator can erase a data subject by (`admin subject:erase`): what an account can suppress, and a
 * person's LinkedIn profile. The global list of erased subjects holds these kinds; an account's only the first three.
 */
export const SUBJECT_KINDS = [...SUPPRESSION_KINDS, 'linkedin'] as const;
export type SubjectKind = (typeof SUBJECT_KINDS)[number];

/** A lead's key a suppression entry or an erased subject can match. */
export interface SubjectEntry {
  kind: SubjectKind;
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

/**
 * A person's LinkedIn profile as `linkedin.com/in/<slug>`, the slug decoded and in lower case, whatever the
 * scheme, the subdomain (`www.`, `uk.`), the query, the fragment or the trailing path; null when the text is
 * not a profile URL (a company page is not a person).
 */
export function normalizeLinkedinUrl(text: string): string | null {
  const raw = text.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`);
  } catch {
    return null;
  }
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (host !== 'linkedin.com' && !host.endsWith('.linkedin.com')) return null;
  const match = /^\/(?:in|pub)\/([^/]+)/i.exec(url.pathname);
  if (!match) return null;
  let slug: string;
  try {
    slug = decodeURIComponent(match[1]!).trim().toLowerCase();
  } catch {
    return null;
  }
  return slug && !/[\s/]/.test(slug) ? `linkedin.com/in/${slug}` : null;
}

export function normalizeSuppression(kind: SubjectKind, value: string): string | null {
  if (kind === 'domain') return normalizeDomain(value);
  if (kind === 'email') return normalizeEmail(value);
  if (kind === 'linkedin') return normalizeLinkedinUrl(value);
  return normalizePhone(value);
}

/**
 * What of a lead a suppression entry can match: the domains of its website and of every email it
 * carries (its own and its contacts'), those emails, its phone numbers, read in the job's country, and
 * the LinkedIn profiles of the person and the contacts (only the erased subjects' list holds those).
 */
export function suppressionKeysOf(lead: Lead, country: string): SubjectEntry[] {
  const emails = [lead.email, ...('contacts' in lead ? lead.contacts.map((c) => c.email) : [])].filter((e): e is string => !!e);
  const phones = [lead.phone, ...('contacts' in lead ? lead.contacts.map((c) => c.phone) : [])].filter((p): p is string => !!p);
  const keys = new Map<string, SubjectEntry>();
  const add = (kind: SubjectKind, value: string | null) => {
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
  const profiles = [
    lead.socialProfiles.linkedin,
    'person' in lead ? lead.person.linkedinUrl : null,
    ...('contacts' in lead ? lead.contacts.map((c) => c.linkedinUrl) : []),
  ];
  for (const profile of profiles) add('linkedin', profile ? normalizeLinkedinUrl(profile) : null);
  return [...keys.values()];
}
