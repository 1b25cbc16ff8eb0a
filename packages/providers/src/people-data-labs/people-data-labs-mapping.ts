import {
  fromUpstream,
  type LinkedinLead,
  type PersonCompany,
  type PersonDetails,
  type StoreContact,
  upstreamProvenance,
} from '@leadgen/domain';
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

/** The provider name on every value PDL answered (the job body's `provider`). */
export const PEOPLE_DATA_LABS = 'people_data_labs';

function strings(value: unknown): string[] {
  return Array.isArray(value) ? (value as unknown[]).map(str).filter((v): v is string => v !== null) : [];
}

/** Every phone PDL returned (`phone_numbers`, then `mobile_phone`), without repeats; PDL's `true` (plan without contact data) is none. */
export function phonesOf(person: PdlPerson): string[] {
  return [
    ...new Set([...strings(person.phone_numbers), ...(str(person.mobile_phone) === null ? [] : [str(person.mobile_phone) as string])]),
  ];
}

/** What kind of address `email` is: work_email is professional; otherwise the type PDL gives the entry of `emails`. */
export function emailTypeOf(person: PdlPerson, email: string | null): PersonDetails['emailType'] {
  if (email === null) return null;
  if (str(person.work_email) === email) return 'professional';
  const entry = Array.isArray(person.emails)
    ? (person.emails as unknown[]).find((e) => e && typeof e === 'object' && str((e as Record<string, unknown>).address) === email)
    : undefined;
  const type = entry ? str((entry as Record<string, unknown>).type) : null;
  return type === 'professional' || type === 'current_professional' ? 'professional' : type === 'personal' ? 'personal' : null;
}

/** PDL's job_company_* fields as the person's company; null when PDL names none. */
export function companyOf(person: PdlPerson): PersonCompany | null {
  const company: PersonCompany = {
    name: displayCase(str(person.job_company_name)),
    website: websiteUrl(person.job_company_website),
    size: str(person.job_company_size),
    industry: str(person.job_company_industry) ?? str(person.industry),
    linkedinUrl: websiteUrl(person.job_company_linkedin_url),
    location: displayCase(str(person.job_company_location_name)),
  };
  return Object.values(company).every((v) => v === null) ? null : company;
}

/** The documented person fields a sales team uses (decision 038), beside the ones the record always had. */
export function personDetails(
  person: PdlPerson,
  email: string | null,
): Omit<PersonDetails, 'fullName' | 'title' | 'seniority' | 'linkedinUrl' | 'location'> {
  return {
    workEmail: str(person.work_email),
    emailType: emailTypeOf(person, email),
    phoneNumbers: phonesOf(person),
    locationParts: {
      locality: displayCase(str(person.location_locality)),
      region: displayCase(str(person.location_region)),
      country: displayCase(str(person.location_country)),
      postalCode: str(person.location_postal_code),
    },
    jobStartDate: str(person.job_start_date),
    seniorityLevels: strings(person.job_title_levels),
    company: companyOf(person),
    skills: strings(person.skills),
  };
}

/**
 * A person onto the linkedin lead record; null without a usable profile URL (it is the dedup key).
 * `retrievedAt`: when PDL answered; every value is PDL's, its source page the person's LinkedIn profile.
 */
export function personToLead(person: PdlPerson, retrievedAt: string = new Date().toISOString()): ProviderLead | null {
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
      ...personDetails(person, emailOf(person)),
    },
    retrievedAt,
  };
  lead.provenance = upstreamProvenance(lead, fromUpstream(PEOPLE_DATA_LABS, retrievedAt, linkedinUrl));
  return { dedupKey: linkedinUrl, lead };
}

export function personToContact(person: PdlPerson, retrievedAt: string = new Date().toISOString()): StoreContact {
  const linkedinUrl = normalizeLinkedinUrl(person.linkedin_url);
  const email = emailOf(person);
  const phone = phoneOf(person);
  const source = fromUpstream(PEOPLE_DATA_LABS, retrievedAt, linkedinUrl);
  return {
    name: displayCase(str(person.full_name)),
    title: str(person.job_title),
    email,
    phone,
    linkedinUrl,
    provenance: {
      email: email === null ? null : source,
      phone: phone === null ? null : source,
      linkedinUrl: linkedinUrl === null ? null : source,
    },
  };
}
