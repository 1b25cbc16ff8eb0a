import { FakeServer, type FakeResponse, makeToken, readToken, type RecordedRequest, shuffled } from './fake-server';

/**
 * A fake of Places API (New) Text Search, answering as Google documents it:
 * - `POST /v1/places:searchText`, key in `X-Goog-Api-Key`: a missing, wrong or expired key is
 *   400 INVALID_ARGUMENT with ErrorInfo reason API_KEY_INVALID in `details` (not 401/403); a key
 *   whose project has the API disabled (`apiDisabled`) is 403 PERMISSION_DENIED, reason
 *   SERVICE_DISABLED; quota (`failNext({ status: 429 })`) is 429 RESOURCE_EXHAUSTED, no Retry-After;
 *   see src/google-places/UPSTREAM.md;
 * - `X-Goog-FieldMask` is required (400 INVALID_ARGUMENT without it), and the answer holds only
 *   the masked fields: `nextPageToken` too is returned only when the mask names it;
 * - `pageSize` defaults to 20, values above 20 are set to 20, negative ones are 400;
 * - at most 60 results per query, in pages linked by `nextPageToken`; a page token is only valid
 *   with every other parameter repeated unchanged (else 400), and tokens can be expired at will;
 * - no result: `{}`;
 * - errors as google.rpc.Status: `{ error: { code, message, status, details } }`.
 *
 * Which places a query finds: `rank` (default: the whole pool, in an order that depends on the
 * query text and location bias, so that query variants overlap but differ, as they do for real).
 */
export interface FakePlace {
  id: string;
  displayName?: { text: string; languageCode: string };
  formattedAddress?: string;
  location?: { latitude: number; longitude: number };
  internationalPhoneNumber?: string;
  nationalPhoneNumber?: string;
  websiteUri?: string;
  rating?: number;
  types?: string[];
  businessStatus?: string;
  /** not in our mask: must never reach the adapter */
  priceLevel?: string;
}

const STATUS_NAME: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

export function googleError(code: number, message = 'fake upstream error', reason?: string): unknown {
  const details = reason === undefined ? [] : [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'googleapis.com', metadata: { service: 'places.googleapis.com' } }];
  return { error: { code, message, status: STATUS_NAME[code] ?? 'UNKNOWN', details } };
}

export function makePlaces(count: number, prefix = 'p'): FakePlace[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `ChIJ${prefix}${String(i).padStart(4, '0')}`,
    displayName: { text: `Business ${prefix}${i}`, languageCode: 'en' },
    formattedAddress: `${i} Main St, Austin, TX 78701, USA`,
    location: { latitude: 30.27 + (i % 10) * 0.01, longitude: -97.74 - Math.floor(i / 10) * 0.01 },
    internationalPhoneNumber: `+1 512-555-${String(1000 + i)}`,
    nationalPhoneNumber: `(512) 555-${String(1000 + i)}`,
    websiteUri: `https://business-${prefix}${i}.example`,
    rating: 3 + (i % 20) / 10,
    types: ['dental_clinic', 'dentist', 'health', 'point_of_interest', 'establishment'],
    businessStatus: 'OPERATIONAL',
    priceLevel: 'PRICE_LEVEL_MODERATE',
  }));
}

export class GooglePlacesFake extends FakeServer {
  places: FakePlace[] = [];
  rank: (body: Record<string, unknown>) => FakePlace[] = (body) =>
    shuffled(this.places, `${String(body.textQuery)}|${JSON.stringify(body.locationBias ?? null)}`);
  /** the project behind the key has Places API (New) disabled */
  apiDisabled = false;
  /** bumped by expireTokens(): older page tokens are refused */
  private generation = 0;

  constructor(readonly apiKey = 'google-test-key') {
    super((request) => this.answer(request), (status) => googleError(status));
  }

  expireTokens(): void {
    this.generation++;
  }

  private answer(request: RecordedRequest): FakeResponse {
    if (request.method !== 'POST' || request.path !== '/v1/places:searchText') return { status: 404, body: googleError(404, 'Not found') };
    if (request.headers['x-goog-api-key'] !== this.apiKey) {
      return { status: 400, body: googleError(400, 'API key not valid. Please pass a valid API key.', 'API_KEY_INVALID') };
    }
    if (this.apiDisabled) {
      return { status: 403, body: googleError(403, 'Places API (New) has not been used in project 0 before or it is disabled.', 'SERVICE_DISABLED') };
    }
    const mask = request.headers['x-goog-fieldmask'];
    if (typeof mask !== 'string' || mask.trim() === '') {
      return { status: 400, body: googleError(400, 'FieldMask is a required parameter. See https://cloud.google.com/apis/docs/system-parameters') };
    }
    const body = request.body;
    if (body === null || typeof body !== 'object' || typeof (body as Record<string, unknown>).textQuery !== 'string') {
      return { status: 400, body: googleError(400, 'Empty text_query.') };
    }
    const { pageToken, ...params } = body as Record<string, unknown>;
    const rawSize = params.pageSize ?? 20;
    if (typeof rawSize !== 'number' || rawSize < 0) return { status: 400, body: googleError(400, 'Invalid page_size.') };
    const pageSize = rawSize === 0 ? 20 : Math.min(20, rawSize);
    const signature = JSON.stringify(params);
    let offset = 0;
    if (pageToken !== undefined) {
      const token = readToken(pageToken);
      if (!token || token.sig !== signature || token.gen !== this.generation || typeof token.offset !== 'number') {
        return { status: 400, body: googleError(400, 'Invalid page_token. Request parameters must match the previous request.') };
      }
      offset = token.offset;
    }
    const matches = this.rank(params).slice(0, 60);
    const page = matches.slice(offset, offset + pageSize);
    const answer: Record<string, unknown> = {};
    if (page.length > 0) answer.places = page.map((place) => masked(place, mask));
    if (offset + pageSize < matches.length && maskNames(mask, 'nextPageToken')) {
      answer.nextPageToken = makeToken({ sig: signature, offset: offset + pageSize, gen: this.generation });
    }
    return { status: 200, body: answer };
  }
}

function maskNames(mask: string, field: string): boolean {
  return mask.split(',').map((f) => f.trim()).some((f) => f === '*' || f === field);
}

function masked(place: FakePlace, mask: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(place)) {
    if (maskNames(mask, `places.${key}`) || maskNames(mask, 'places')) out[key] = value;
  }
  return out;
}

export async function startGooglePlacesFake(apiKey?: string): Promise<GooglePlacesFake> {
  return new GooglePlacesFake(apiKey).start();
}
