import type { LinkedinLead, StoreContact } from '@leadgen/domain';
import type { ProviderLead } from '../lead-provider';
import type { PdlPerson } from './pdl-api';
import { seniorityOfLevel } from './query';

function str(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/**
 * PDL writes names in lower case ("sean thorne"). Only an all-lower-case value is capitalised, so
 * a name PDL already spelt ("McDonald") is left alone.
 */
export function displayCase(value: string | null): string | null {
  if (value === null || value !== value.toLowerCase()) return value;
  return value.replace(/(^|[\s\-'])(\p{L})/gu, (_m, sep: string, letter: string) => sep + letter.toUpperCase());
}

/**
 * `linkedin.com/in/Sean-Thorne/`, `https://uk.linkedin.com/in/sean-thorne?x=1` and the like all
 * become `https://www.linkedin.com/in/sean-thorne`: one person, one dedup key.
 */
export function normalizeLinkedinUrl(raw: unknown): string | null {
  const value = str(raw);
  if (value === null) return null;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`);
  } catch {
    return null;
  }
  const host = url.hostname.toLowerCase();
  if (host !== 'linkedin.com' && !host.endsWith('.linkedin.com')) return null;
  const path = url.pathname.replace(/\/+$/, '').toLowerCase();
  if (!/^\/(in|pub)\/[^/]+/.test(path)) return null;
  return `https://www.linkedin.com${path}`;
}

/** A bare domain or URL as PDL gives it ("peopledatalabs.com") onto a URL. */
export function websiteUrl(raw: unknown): string | null {
  const value = str(raw);
  if (value === null) return null;
  return /^https?:\/\//i.test(value) ? value : `https://${value}`;
}

/** work_email, else the first address of `emails`; PDL sends `true` instead of a value on plans without contact data. */
export function emailOf(person: PdlPerson): string | null {
  const work = str(person.work_email);
  if (work !== null) return work;
  if (Array.isArray(person.emails)) {
    for (const entry of person.emails as unknown[]) {
      const address =
        typeof entry === 'string'
          ? str(entry)
          : entry && typeof entry === 'object'
            ? str((entry as Record<string, unknown>).address)
            : null;
      if (address !== null) return address;
    }
  }
  return null;
}

export function phoneOf(person: PdlPerson): string | null {
  if (Array.isArray(person.phone_numbers)) {
    for (const phone of person.phone_numbers as unknown[]) if (str(phone) !== null) return str(phone);
  }
  return str(person.mobile_phone);
}

function firstLevel(person: PdlPerson): unknown {
  return Array.isArray(person.job_title_levels) ? (person.job_title_levels as unknown[])[0] : undefined;
}

/** A person onto the linkedin lead record; null without a usable profile URL (it is the dedup key). */
export function personToLead(person: PdlPerson): ProviderLead | null {
  const linkedinUrl = normalizeLinkedinUrl(person.linkedin_url);
  const fullName = displayCase(str(person.full_name));
  if (linkedinUrl === null || fullName === null) return null;
  const industry = str(person.industry);
  const location = displayCase(str(person.location_name));
  const lead: LinkedinLead = {
    source: 'linkedin',
    businessName: displayCase(str(person.job_company_name)) ?? '',
    email: emailOf(person),
    phone: phoneOf(person),
    address: location ?? '',
    website: websiteUrl(person.job_company_website),
    reviewScore: null,
    categories: industry === null ? [] : [industry],
    socialProfiles: {
      facebook: websiteUrl(person.facebook_url),
      instagram: null,
      linkedin: linkedinUrl,
    },
    person: {
      fullName,
      title: str(person.job_title),
      seniority: seniorityOfLevel(firstLevel(person)),
      linkedinUrl,
      location,
    },
  };
  return { dedupKey: linkedinUrl, lead };
}

export function personToContact(person: PdlPerson): StoreContact {
  return {
    name: displayCase(str(person.full_name)),
    title: str(person.job_title),
    email: emailOf(person),
    phone: phoneOf(person),
    linkedinUrl: normalizeLinkedinUrl(person.linkedin_url),
  };
}
