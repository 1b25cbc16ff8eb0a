import { FakeServer, type FakeResponse, makeToken, readToken, type RecordedRequest } from './fake-server';

/**
 * A fake of People Data Labs' Person Search (`POST /v5/person/search`), as PDL documents it:
 * - key in `X-Api-Key` (wrong or missing: 401 authentication_error);
 * - `query` (Elasticsearch) required, `size` 1..100 (else 400 invalid_request_error);
 * - `{ status: 200, data, total, scroll_token }`; the next page repeats the query with
 *   `scroll_token` (a token used with another query: 400); nothing (more) to return: 404
 *   not_found, which PDL does not bill;
 * - errors as `{ status, error: { type, message } }`.
 * - `dataset`: the slices searched, comma-separated (`resume`: records with a LinkedIn URL, `email`,
 *   `phone`, `all`); an unknown name is 400;
 * - every answer carries `x-ratelimit-remaining` (`{"minute": n}`, counting down from
 *   `perMinute`), `x-ratelimit-reset` and `x-totallimit-remaining`, as the official SDK reads them.
 * The query is evaluated for real over `people`, for the clauses the adapter writes: bool
 * (must/should/filter/minimum_should_match), term, terms, match, match_phrase, exists. Fields are
 * `keyword` or `text` as in PDL's mapping: on a keyword field (`industry`, `job_company_name`,
 * `skills`, `location_locality`, ...) any query matches only the whole value, so "software" finds no
 * "computer software" and "acme" no "acme dental"; on a text field (`job_title`, `summary`) a phrase
 * matches inside, and a `term` must be one word (see src/people-data-labs/UPSTREAM.md).
 */
const TEXT_FIELDS = new Set(['job_title', 'summary']);
const DATASETS: Record<string, (person: FakePerson) => boolean> = {
  all: () => true,
  resume: (p) => values(p, 'linkedin_url').length > 0,
  email: (p) => values(p, 'work_email').length > 0 || (Array.isArray(p.emails) && p.emails.length > 0),
  phone: (p) => values(p, 'phone_numbers').length > 0,
};
export type FakePerson = Record<string, unknown>;

const ERROR_TYPE: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'payment_required',
  404: 'not_found',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'api_error',
};

export function pdlError(status: number, message = 'fake upstream error'): unknown {
  return { status, error: { type: ERROR_TYPE[status] ?? 'api_error', message } };
}

function values(person: FakePerson, field: string): string[] {
  const value = person[field];
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  return list.filter((v): v is string | number => typeof v === 'string' || typeof v === 'number').map((v) => String(v).toLowerCase());
}

/** Evaluates the Elasticsearch subset the adapter uses; an unknown clause is a 400, as it would be. */
export function matches(person: FakePerson, clause: unknown): boolean {
  if (clause === null || typeof clause !== 'object') throw new Error('invalid clause');
  const [kind, arg] = Object.entries(clause)[0] ?? [];
  const spec = arg as Record<string, unknown>;
  switch (kind) {
    case 'bool': {
      const all = [...((spec.must as unknown[]) ?? []), ...((spec.filter as unknown[]) ?? [])];
      const any = (spec.should as unknown[]) ?? [];
      const min = typeof spec.minimum_should_match === 'number' ? spec.minimum_should_match : all.length === 0 && any.length > 0 ? 1 : 0;
      return all.every((c) => matches(person, c)) && any.filter((c) => matches(person, c)).length >= min;
    }
    case 'term': {
      const [field, value] = Object.entries(spec)[0] ?? [];
      return termMatches(person, field ?? '', value);
    }
    case 'terms': {
      const [field, list] = Object.entries(spec)[0] ?? [];
      return (list as unknown[]).some((v) => termMatches(person, field ?? '', v));
    }
    case 'match':
    case 'match_phrase': {
      const [field, text] = Object.entries(spec)[0] ?? [];
      if (!TEXT_FIELDS.has(field ?? '')) return values(person, field ?? '').includes(String(text).toLowerCase());
      if (kind === 'match_phrase') {
        const phrase = ` ${String(text).toLowerCase()} `;
        return values(person, field ?? '').some((v) => ` ${v.replace(/\W+/g, ' ')} `.includes(phrase));
      }
      const words = String(text).toLowerCase().split(/\s+/);
      return values(person, field ?? '').some((v) => words.some((w) => v.split(/\W+/).includes(w)));
    }
    case 'exists': {
      // Elasticsearch's exists: any non-null value; on an object field (`emails`: `[{ address, type }]`) any entry.
      const value = person[String(spec.field)];
      if (Array.isArray(value)) return value.some((v) => v !== null && v !== undefined && v !== '');
      return value !== null && value !== undefined && value !== '';
    }
    default:
      throw new Error(`unsupported clause ${String(kind)}`);
  }
}

/** A term is not analysed: on a keyword field it is the whole value, on a text field one of its words. */
function termMatches(person: FakePerson, field: string, value: unknown): boolean {
  const wanted = String(value);
  if (!TEXT_FIELDS.has(field)) return values(person, field).includes(wanted);
  return values(person, field).some((v) => v.split(/\W+/).includes(wanted));
}

export function makePeople(count: number, overrides: (i: number) => Partial<FakePerson> = () => ({})): FakePerson[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `pdl-${i}`,
    full_name: `person number${i}`,
    job_title: i % 2 === 0 ? 'chief executive officer' : 'head of marketing',
    job_title_levels: i % 2 === 0 ? ['cxo'] : ['director'],
    linkedin_url: `linkedin.com/in/person-${i}`,
    location_name: 'austin, texas, united states',
    location_locality: 'austin',
    location_country: 'united states',
    job_company_name: `company ${i}`,
    job_company_website: `company${i}.com`,
    job_company_size: '51-200',
    industry: 'computer software',
    work_email: i % 3 === 0 ? `person${i}@company${i}.com` : null,
    emails: [{ address: `p${i}@mail.example`, type: 'personal' }],
    phone_numbers: i % 4 === 0 ? [`+1512555${String(1000 + i)}`] : [],
    facebook_url: null,
    // Decision 038: more of PDL's person schema (https://docs.peopledatalabs.com/docs/fields), as PDL writes them:
    // location parts lower case, `location_region` the state's name, dates as YYYY-MM or YYYY-MM-DD, the company's
    // `job_company_size` a band, `job_company_linkedin_url` without a scheme, `skills` lower-case keywords.
    location_region: 'texas',
    location_postal_code: '78701',
    job_start_date: `20${String(10 + (i % 15))}-0${1 + (i % 9)}`,
    job_company_industry: 'computer software',
    job_company_linkedin_url: `linkedin.com/company/company-${i}`,
    job_company_location_name: 'austin, texas, united states',
    skills: ['sales', 'saas', 'leadership'],
    ...overrides(i),
  }));
}

export class PdlFake extends FakeServer {
  people: FakePerson[] = [];
  /** the per-minute allowance the rate-limit headers count down from */
  perMinute = 100;
  private usedThisMinute = 0;

  constructor(readonly apiKey = 'pdl-test-key') {
    super(
      (request) => this.answer(request),
      (status) => pdlError(status),
    );
  }

  private answer(request: RecordedRequest): FakeResponse {
    if (request.method !== 'POST' || request.path !== '/v5/person/search') return { status: 404, body: pdlError(404, 'Not found') };
    if (request.headers['x-api-key'] !== this.apiKey) return { status: 401, body: pdlError(401, 'Invalid API key') };
    const body = request.body as Record<string, unknown> | null;
    if (!body || typeof body !== 'object' || !body.query || typeof body.query !== 'object') {
      return { status: 400, body: pdlError(400, 'You must provide either query or sql') };
    }
    const size = body.size ?? 1;
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > 100) {
      return { status: 400, body: pdlError(400, 'size must be an integer between 1 and 100') };
    }
    const signature = JSON.stringify(body.query);
    let offset = 0;
    if (body.scroll_token !== undefined) {
      const token = readToken(body.scroll_token);
      if (!token || token.sig !== signature || typeof token.offset !== 'number')
        return { status: 400, body: pdlError(400, 'Invalid scroll_token') };
      offset = token.offset;
    }
    const slices = typeof body.dataset === 'string' ? body.dataset.split(',').map((d) => d.trim()) : ['all'];
    const unknown = slices.find((d) => DATASETS[d] === undefined);
    if (unknown !== undefined) return { status: 400, body: pdlError(400, `Invalid dataset: ${unknown}`) };
    let found: FakePerson[];
    try {
      found = this.people.filter((p) => slices.some((d) => DATASETS[d]!(p)) && matches(p, body.query));
    } catch (error) {
      return { status: 400, body: pdlError(400, (error as Error).message) };
    }
    const data = found.slice(offset, offset + size);
    const headers = this.rateLimitHeaders();
    if (data.length === 0) return { status: 404, body: pdlError(404, 'No records were found matching your search'), headers };
    return {
      status: 200,
      body: { status: 200, data, total: found.length, scroll_token: makeToken({ sig: signature, offset: offset + size }) },
      headers,
    };
  }

  override reset(): void {
    super.reset();
    this.usedThisMinute = 0;
  }

  private rateLimitHeaders(): Record<string, string> {
    this.usedThisMinute += 1;
    return {
      'x-ratelimit-remaining': JSON.stringify({ minute: Math.max(0, this.perMinute - this.usedThisMinute) }),
      'x-ratelimit-reset': '1',
      'x-totallimit-remaining': '1000',
    };
  }
}

export async function startPdlFake(apiKey?: string): Promise<PdlFake> {
  return new PdlFake(apiKey).start();
}
