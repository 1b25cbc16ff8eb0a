import { type ContactChannel, countryName, type GenerationRequest, type Seniority } from '@leadgen/domain';
import { canonicalIndustry } from './industries';

/**
 * Our seniorities onto PDL's `job_title_levels` (cxo, owner, partner, vp, director, manager,
 * senior, entry, training, unpaid). PDL has no "founder" or "head": founders are recorded as
 * owners, and a head of a function sits between director and vp.
 */
const PDL_LEVELS: Record<Seniority, string[]> = {
  owner: ['owner'],
  founder: ['owner'],
  c_suite: ['cxo'],
  partner: ['partner'],
  vp: ['vp'],
  head: ['director', 'vp'],
  director: ['director'],
  manager: ['manager'],
  senior: ['senior'],
  entry: ['entry'],
  intern: ['training'],
};

const SENIORITY_OF_LEVEL: Record<string, Seniority> = {
  cxo: 'c_suite',
  owner: 'owner',
  partner: 'partner',
  vp: 'vp',
  director: 'director',
  manager: 'manager',
  senior: 'senior',
  entry: 'entry',
  training: 'intern',
};

export function seniorityOfLevel(level: unknown): Seniority | null {
  return typeof level === 'string' ? (SENIORITY_OF_LEVEL[level.toLowerCase()] ?? null) : null;
}

/** PDL's `location_country` holds lower-case English names ("united states"). */
export function pdlCountry(code: string): string {
  return countryName(code.toUpperCase()).toLowerCase();
}

type Clause = Record<string, unknown>;

function lower(values: readonly string[]): string[] {
  return [...new Set(values.map((v) => v.trim().toLowerCase()).filter(Boolean))];
}

/**
 * How PDL's Elasticsearch mapping indexes the fields we query (UPSTREAM.md): a `keyword` field
 * holds whole lower-case values, so only `term`/`terms` on the whole value match it (a phrase
 * inside "acme dental group" finds nothing); a `text` field is analysed into words, so a phrase
 * matches inside it and a `term` of several words matches nothing.
 */
export const PDL_TEXT_FIELDS = new Set(['job_title', 'summary']);

function phrases(field: string, values: readonly string[]): Clause[] {
  if (!PDL_TEXT_FIELDS.has(field)) throw new Error(`${field} is a keyword field: match_phrase would match only whole values`);
  return lower(values).map((p) => ({ match_phrase: { [field]: p } }));
}

/** Any of the phrases, against a text field (titles are written a hundred ways). */
export function anyPhrase(field: string, values: readonly string[]): Clause {
  return { bool: { should: phrases(field, values), minimum_should_match: 1 } };
}

/** Any of the whole values, against a keyword field. */
function anyTerm(field: string, values: readonly string[]): Clause {
  const list = lower(values);
  return list.length === 1 ? { term: { [field]: list[0] } } : { terms: { [field]: list } };
}

/**
 * The Elasticsearch query for a linkedin request: enumerated fields (levels, company size,
 * country, industries mapped to PDL's canonical list) as exact `terms`, free text (titles, the
 * city, the keyword) as phrases. Only profiles with a LinkedIn URL: it is the lead's identity.
 */
export function buildPersonQuery(request: GenerationRequest): Clause {
  const params = request.linkedinParams ?? {};
  const must: Clause[] = [{ exists: { field: 'linkedin_url' } }];
  if (params.title && params.title.length > 0) must.push(anyPhrase('job_title', params.title));
  if (params.seniority && params.seniority.length > 0) {
    must.push({ terms: { job_title_levels: [...new Set(params.seniority.flatMap((s) => PDL_LEVELS[s]))] } });
  }
  if (params.industry && params.industry.length > 0) {
    // An explicit industry is a filter the client asked for: a value we cannot map is kept as given
    // (it then matches nobody) rather than dropped, which would widen the search behind their back.
    must.push({ terms: { industry: lower(params.industry.map((i) => canonicalIndustry(i) ?? i)) } });
  } else if (request.category.trim() !== '') {
    const industry = canonicalIndustry(request.category);
    // A category that names no industry ("sommelier") is most likely a role: look for it in titles
    // (industry is a keyword field of canonical values, where such a phrase matches nobody).
    must.push(industry !== null ? { term: { industry } } : anyPhrase('job_title', [request.category]));
  }
  if (params.companySize && params.companySize.length > 0) must.push({ terms: { job_company_size: [...params.companySize] } });
  must.push({ term: { location_country: pdlCountry(params.country ?? request.state) } });
  if (request.city && request.city.trim() !== '') must.push(anyTerm('location_locality', [request.city]));
  // The keyword narrows: the person's title or summary says it, or it is their company's name or one of their skills.
  const keyword = request.keyword?.trim();
  if (keyword) {
    must.push({
      bool: {
        should: [
          ...phrases('job_title', [keyword]),
          ...phrases('summary', [keyword]),
          anyTerm('job_company_name', [keyword]),
          anyTerm('skills', [keyword]),
        ],
        minimum_should_match: 1,
      },
    });
  }
  return { bool: { must } };
}

/**
 * PDL's `dataset` slices (UPSTREAM.md): `resume` holds the records with a LinkedIn profile (a
 * linkedin lead's identity), `email` and `phone` those with one; several, comma-separated, are their union.
 */
export function personDataset(): string {
  return 'resume';
}

/** The slices where a store's decision makers can add the channels the request requires; all of them when none is required. */
export function contactDataset(channels: readonly ContactChannel[]): string {
  const slices = { email: 'email', phone: 'phone', linkedin: 'resume' } as const;
  return channels.length === 0 ? 'all' : [...new Set(channels.map((c) => slices[c]))].join(',');
}

/** People holding one of `titles` at one of the companies whose website is in `domains`. */
export function buildCompanyPeopleQuery(domains: readonly string[], titles: readonly string[]): Clause {
  return { bool: { must: [{ terms: { job_company_website: lower(domains) } }, anyPhrase('job_title', titles)] } };
}
