import type { GenerationRequest } from '@leadgen/domain';
import { UpstreamClient } from '../src/upstream';
import { createGooglePlacesProvider } from '../src/google-places';
import { createPeopleDataLabsProvider } from '../src/people-data-labs';
import { ProviderError, type LeadProvider } from '../src/lead-provider';
import { createStoreLeadsProvider } from '../src/store-leads';
import type { FakeServer } from '@leadgen/testing';
import { makePlaces, startGooglePlacesFake } from '@leadgen/testing';
import { makePeople, startPdlFake } from '@leadgen/testing';
import { makeStores, startStoreLeadsFake } from '@leadgen/testing';
import { collect, context, FAST_RETRY, failure, request } from './support/provider-search';

/**
 * The behaviour every real adapter shares through the upstream client, checked against each
 * adapter's own fake: retries, Retry-After, refusals, malformed and unfinished answers, deadlines.
 */
interface Harness {
  fake: FakeServer;
  request: GenerationRequest;
  refusedStatus: number;
  provider(options?: { key?: string; attemptTimeoutMs?: number }): LeadProvider;
}

type ClientOptions = { key?: string; attemptTimeoutMs?: number };

function client(name: string, fake: FakeServer, headers: Record<string, string>, options: ClientOptions): UpstreamClient {
  return new UpstreamClient({ name, baseUrl: fake.url, headers, retry: FAST_RETRY, attemptTimeoutMs: options.attemptTimeoutMs ?? 5_000 });
}

const harnesses: Record<string, () => Promise<Harness>> = {
  google_places: async () => {
    const fake = await startGooglePlacesFake('good-key');
    fake.places = makePlaces(30);
    return {
      fake,
      refusedStatus: 400,
      request: request(),
      provider: (o = {}) =>
        createGooglePlacesProvider({
          client: client('google_places', fake, { 'x-goog-api-key': o.key ?? 'good-key' }, o),
          enrichment: null,
        }),
    };
  },
  people_data_labs: async () => {
    const fake = await startPdlFake('good-key');
    fake.people = makePeople(30);
    return {
      fake,
      refusedStatus: 401,
      request: request({ source: 'linkedin', category: 'software', city: undefined }),
      provider: (o = {}) =>
        createPeopleDataLabsProvider({ client: client('people_data_labs', fake, { 'x-api-key': o.key ?? 'good-key' }, o) }),
    };
  },
  storeleads: async () => {
    const fake = await startStoreLeadsFake('good-key');
    fake.stores = makeStores(30);
    return {
      fake,
      refusedStatus: 401,
      request: request({ source: 'shopify', category: 'apparel', city: undefined }),
      provider: (o = {}) =>
        createStoreLeadsProvider({
          client: client('storeleads', fake, { authorization: `Bearer ${o.key ?? 'good-key'}` }, o),
          people: null,
          enrichment: null,
        }),
    };
  },
};

describe.each(Object.keys(harnesses))('%s adapter against its fake upstream', (name) => {
  let h: Harness;
  beforeAll(async () => {
    h = await (harnesses[name] as () => Promise<Harness>)();
  });
  afterAll(() => h.fake.close());
  beforeEach(() => h.fake.reset());

  async function firstPage(provider: LeadProvider) {
    const pages = await collect(provider, h.request, context(), 1);
    return pages[0];
  }

  it('when the upstream answers 429 and then 503 before a normal answer, then the page arrives after two retries', async () => {
    h.fake.failNext({ status: 429 }, { status: 503 });
    const page = await firstPage(h.provider());
    expect(page?.leads.length).toBeGreaterThan(0);
    expect(h.fake.requests).toHaveLength(3);
  });

  it('when a 429 carries Retry-After: 1, then the retry waits about a second', async () => {
    h.fake.failNext({ status: 429, retryAfter: '1' });
    await firstPage(h.provider());
    const [first, second] = h.fake.requests;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(900);
    expect(second!.at - first!.at).toBeLessThan(4_000);
  });

  it('when the upstream answers 400, then it is not retried and the search fails with provider_error', async () => {
    h.fake.failNext({ status: 400 });
    const error = await failure(h.provider(), h.request, context());
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ reason: 'provider_error', upstreamStatus: 400 });
    expect(h.fake.requests).toHaveLength(1);
  });

  it('when the credentials are refused, then the search fails with provider_unauthorized without a retry', async () => {
    const error = await failure(h.provider({ key: 'wrong-key' }), h.request, context());
    expect(error).toMatchObject({ reason: 'provider_unauthorized', upstreamStatus: h.refusedStatus });
    expect(h.fake.requests).toHaveLength(1);
    expect(String((error as Error).message)).not.toContain('wrong-key');
  });

  it('when the upstream keeps answering 503, then the search fails with provider_error once the retries are spent', async () => {
    h.fake.failAlways({ status: 503 });
    const error = await failure(h.provider(), h.request, context());
    expect(error).toMatchObject({ reason: 'provider_error', upstreamStatus: 503 });
    expect(h.fake.requests).toHaveLength(FAST_RETRY.maxAttempts);
  });

  it('when the body is not JSON, then the search fails with provider_error without a retry', async () => {
    h.fake.failNext('malformed');
    const error = await failure(h.provider(), h.request, context());
    expect(error).toMatchObject({ reason: 'provider_error' });
    expect(h.fake.requests).toHaveLength(1);
  });

  it('when a response never finishes, then the search ends by the deadline with provider_error', async () => {
    h.fake.failAlways('hang');
    const started = Date.now();
    const error = await failure(h.provider({ attemptTimeoutMs: 60_000 }), h.request, context({ deadline: Date.now() + 400 }));
    expect(error).toMatchObject({ reason: 'provider_error' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('when a response never finishes and the job times out as the worker times it out, then the search ends with the signal reason', async () => {
    h.fake.failAlways('hang');
    const controller = new AbortController();
    const reason = new Error('job timed out');
    const deadline = Date.now() + 300;
    setTimeout(() => controller.abort(reason), deadline - Date.now());
    const error = await failure(h.provider({ attemptTimeoutMs: 60_000 }), h.request, context({ signal: controller.signal, deadline }));
    expect(error).toBe(reason);
  });

  it('when a response never finishes and the job is cancelled, then the search ends at once with the signal reason', async () => {
    h.fake.failAlways('hang');
    const controller = new AbortController();
    const reason = new Error('cancelled by owner');
    setTimeout(() => controller.abort(reason), 100);
    const error = await failure(h.provider(), h.request, context({ signal: controller.signal }));
    expect(error).toBe(reason);
  });

  it('when the job is cancelled during a Retry-After wait, then the search stops at once with the signal reason', async () => {
    h.fake.failNext({ status: 429, retryAfter: '3' });
    const controller = new AbortController();
    const reason = new Error('shutting down');
    setTimeout(() => controller.abort(reason), 100);
    const started = Date.now();
    const error = await failure(h.provider(), h.request, context({ signal: controller.signal }));
    expect(error).toBe(reason);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('when Retry-After would end after the deadline, then the search fails at once instead of sleeping', async () => {
    h.fake.failNext({ status: 429, retryAfter: '4' });
    const started = Date.now();
    const error = await failure(h.provider(), h.request, context({ deadline: Date.now() + 1_500 }));
    expect(error).toMatchObject({ reason: 'provider_error', upstreamStatus: 429 });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(h.fake.requests).toHaveLength(1);
  });
});
