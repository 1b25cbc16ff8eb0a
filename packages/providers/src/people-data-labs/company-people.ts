import type { ContactChannel, StoreContact } from '@leadgen/domain';
import type { UpstreamClient } from '../upstream';
import { personToContact } from './people-data-labs-mapping';
import { MAX_SIZE, personSearch } from './pdl-api';
import { buildCompanyPeopleQuery, contactDataset } from './query';

/** Finds decision makers at companies, by company website domain. */
export interface CompanyPeopleFinder {
  /** contacts per (lower-case, www-less) domain; a domain with nobody found is absent */
  find(
    domains: readonly string[],
    titles: readonly string[],
    signal: AbortSignal,
    deadline: number,
    channels?: readonly ContactChannel[],
  ): Promise<Map<string, StoreContact[]>>;
}

/** "https://www.Shop.com/about" → "shop.com" */
export function bareDomain(value: string): string {
  return value
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/^www\./, '')
    .replace(/[/?#:].*$/, '');
}

function holdsTitle(contact: StoreContact, titles: readonly string[]): boolean {
  const title = contact.title?.toLowerCase();
  return title !== undefined && titles.some((t) => title.includes(t.trim().toLowerCase()));
}

/**
 * One PDL call for a whole batch of stores rather than one per store: PDL's default quota is 10
 * calls a minute for the whole fleet. Only the first page is read (PDL bills every record), with
 * room for `perCompany` people per store.
 */
export function createCompanyPeopleFinder(client: UpstreamClient, perCompany = 5): CompanyPeopleFinder {
  return {
    async find(domains, titles, signal, deadline, channels = []) {
      const found = new Map<string, StoreContact[]>();
      const wanted = [...new Set(domains.map(bareDomain).filter(Boolean))];
      if (wanted.length === 0 || titles.length === 0) return found;
      const size = Math.min(MAX_SIZE, wanted.length * perCompany);
      const page = await personSearch(
        client,
        { query: buildCompanyPeopleQuery(wanted, titles), size, dataset: contactDataset(channels) },
        signal,
        deadline,
      );
      for (const person of page?.people ?? []) {
        const domain = typeof person.job_company_website === 'string' ? bareDomain(person.job_company_website) : '';
        if (!wanted.includes(domain)) continue;
        const contact = personToContact(person);
        // PDL matched the titles already; this keeps the promise "filtered by decisionMakerTitles" whatever it matched on.
        if (!holdsTitle(contact, titles)) continue;
        const list = found.get(domain) ?? [];
        if (list.length < perCompany) list.push(contact);
        found.set(domain, list);
      }
      return found;
    },
  };
}
