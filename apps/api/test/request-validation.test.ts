import type { Response } from 'supertest';
import { generate, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';

let world: TestWorld;
let account: TestAccount;

beforeAll(async () => {
  world = await startWorld();
  account = await buildAccount(world.db, { credits: 1_000_000 });
});
afterAll(() => world.close());

type Body = Record<string, unknown>;
interface FieldProblem {
  pointer: string;
  detail: string;
}

// the governed list's name, which docs/api.md promises in the message
const LIST_NAME = 'linkedin-supported-countries v1';

const maps: Body = { category: 'dentist', state: 'US', maxResults: 1 };
const linkedin: Body = { source: 'linkedin', category: 'software', state: 'US', maxResults: 1 };
const shopify: Body = { source: 'shopify', category: 'apparel', state: 'US', maxResults: 1 };

function expectValidationProblem(res: Response): FieldProblem[] {
  expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'validation_failed' });
  expect(res.get('Content-Type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ type: expect.any(String), title: expect.any(String), status: 400, detail: expect.any(String) });
  expect(Array.isArray(res.body.errors)).toBe(true);
  for (const problem of res.body.errors as FieldProblem[]) {
    expect(problem).toEqual({ pointer: expect.stringMatching(/^#/), detail: expect.any(String) });
  }
  return res.body.errors as FieldProblem[];
}

/** The body is refused with exactly one problem, at `pointer`; returns its detail. */
async function rejected(body: unknown, pointer: string): Promise<string> {
  const problems = expectValidationProblem(await generate(world, account, body));
  expect(problems.map((p) => p.pointer)).toEqual([pointer]);
  return problems[0]!.detail;
}

/** The body is accepted (202 at once); returns the normalised request the job stored. */
async function accepted(body: Body): Promise<Body> {
  const res = await generate(world, account, body, { Prefer: 'respond-async' });
  expect({ status: res.status, body: res.body }).toMatchObject({ status: 202, body: { jobId: expect.stringMatching(/^job_/) } });
  const job = await world.http.get(res.body.pollUrl).set(account.auth);
  expect(job.status).toBe(200);
  return job.body.request as Body;
}

describe('source', () => {
  it('when the source is unknown, then 400 at #/source', async () => {
    expect(await rejected({ ...maps, source: 'bing' }, '#/source')).toMatch(/google_maps/);
  });

  it('when the source is absent, then google_maps', async () => {
    expect(await accepted(maps)).toMatchObject({ source: 'google_maps' });
  });
});

describe('category', () => {
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['whitespace only', '   \t '],
    ['201 characters', 'c'.repeat(201)],
    ['not a string', 42],
  ])('when the category is %s, then 400 at #/category', async (_name, category) => {
    await rejected({ ...maps, category }, '#/category');
  });

  it('when the category is 200 characters, then it is accepted', async () => {
    const category = 'c'.repeat(200);
    expect(await accepted({ ...maps, category })).toMatchObject({ category });
  });
});

describe('state', () => {
  it.each([
    ['missing', undefined],
    ['not an assigned ISO code', 'XX'],
    ['an alpha-3 code', 'USA'],
    ['a number', 12],
    ['a country name (outside linkedin)', 'Germany'],
  ])('when the state is %s, then 400 at #/state', async (_name, state) => {
    await rejected({ ...maps, state }, '#/state');
  });

  it('when the state is lower case, then it is accepted and stored upper case', async () => {
    expect(await accepted({ ...maps, state: 'us' })).toMatchObject({ state: 'US' });
  });

  it('when a shopify state is a valid ISO code off the linkedin list, then it is accepted', async () => {
    expect(await accepted({ ...shopify, state: 'aq' })).toMatchObject({ source: 'shopify', state: 'AQ' });
  });
});

describe('state for linkedin: the governed list', () => {
  it.each([
    ['a code', 'DE', 'DE'],
    ['a lower-case code', 'de', 'DE'],
    ['an English name', 'Germany', 'DE'],
    ['an English name in another case', 'united kingdom', 'GB'],
  ])('when the state is %s from the list, then it is normalised to the code', async (_name, state, code) => {
    expect(await accepted({ ...linkedin, state })).toMatchObject({ source: 'linkedin', state: code });
  });

  it.each([
    ['a valid ISO code not on the list', 'KP'],
    ['another valid ISO code not on the list', 'AQ'],
    ['a name not on the list', 'Atlantis'],
  ])('when the state is %s, then 400 naming the list', async (_name, state) => {
    expect(await rejected({ ...linkedin, state }, '#/state')).toContain(LIST_NAME);
  });

  it('when the linkedin state is missing, then 400 at #/state', async () => {
    await rejected({ ...linkedin, state: undefined }, '#/state');
  });
});

describe('city and keyword', () => {
  it.each(['city', 'keyword'])('when %s is over 200 characters, then 400 at its pointer', async (field) => {
    await rejected({ ...maps, [field]: 'k'.repeat(201) }, `#/${field}`);
  });

  it.each(['city', 'keyword'])('when %s is not a string, then 400 at its pointer', async (field) => {
    await rejected({ ...maps, [field]: 7 }, `#/${field}`);
  });

  it('when city and keyword are 200 characters, then they are accepted', async () => {
    const request = await accepted({ ...maps, city: 'a'.repeat(200), keyword: 'b'.repeat(200) });
    expect(request).toMatchObject({ city: 'a'.repeat(200), keyword: 'b'.repeat(200) });
  });
});

describe('maxResults', () => {
  it.each([
    ['0', 0],
    ['101', 101],
    ['2.5', 2.5],
    ['the string "10"', '10'],
    ['-1', -1],
    ['null', null],
  ])('when maxResults is %s, then 400 at #/maxResults, never clamped', async (_name, maxResults) => {
    await rejected({ ...maps, maxResults }, '#/maxResults');
  });

  it.each([1, 100])('when maxResults is %s, then it is accepted as is', async (maxResults) => {
    expect(await accepted({ ...maps, maxResults })).toMatchObject({ maxResults });
  });

  it('when maxResults is absent, then the default of 25 is stored', async () => {
    const { maxResults: _omitted, ...body } = maps;
    expect(await accepted(body)).toMatchObject({ maxResults: 25 });
  });
});

describe('linkedinParams', () => {
  it.each([
    ['google_maps', maps],
    ['shopify', shopify],
    ['absent (so google_maps)', { category: 'dentist', state: 'US' }],
  ])('when linkedinParams comes with source %s, then 400 at #/linkedinParams', async (_name, base) => {
    await rejected({ ...base, linkedinParams: { title: 'CTO' } }, '#/linkedinParams');
  });

  it('when title is a string or an array, then both are accepted and stored as arrays', async () => {
    expect(await accepted({ ...linkedin, linkedinParams: { title: 'CTO' } })).toMatchObject({ linkedinParams: { title: ['CTO'] } });
    expect(await accepted({ ...linkedin, linkedinParams: { title: ['CTO', 'VP Engineering'] } })).toMatchObject({
      linkedinParams: { title: ['CTO', 'VP Engineering'] },
    });
  });

  it('when every filter is given with good values, then all are accepted and normalised', async () => {
    const request = await accepted({
      ...linkedin,
      linkedinParams: {
        title: 'CTO',
        seniority: ['c_suite', 'vp'],
        industry: 'Software',
        companySize: ['11-50', '10001+'],
        country: 'Germany',
      },
    });
    expect(request.linkedinParams).toEqual({
      title: ['CTO'],
      seniority: ['c_suite', 'vp'],
      industry: ['Software'],
      companySize: ['11-50', '10001+'],
      country: 'DE',
    });
  });

  it('when a seniority is outside the list, then 400 at that item', async () => {
    await rejected({ ...linkedin, linkedinParams: { seniority: ['manager', 'boss'] } }, '#/linkedinParams/seniority/1');
  });

  it('when a companySize is outside the list, then 400 at that item', async () => {
    await rejected({ ...linkedin, linkedinParams: { companySize: ['2-3'] } }, '#/linkedinParams/companySize/0');
  });

  it('when linkedinParams holds an unknown field, then 400 at that field', async () => {
    const detail = await rejected({ ...linkedin, linkedinParams: { title: 'CTO', location: 'Berlin' } }, '#/linkedinParams/location');
    expect(detail).not.toMatch(/generation request/);
  });

  it('when linkedinParams is not an object, then 400 at #/linkedinParams with a detail about linkedinParams', async () => {
    const detail = await rejected({ ...linkedin, linkedinParams: 'CTO' }, '#/linkedinParams');
    expect(detail).toMatch(/^linkedinParams /);
    expect(detail).not.toMatch(/body/);
  });

  it('when the country is a valid ISO code off the governed list, then 400 naming the list', async () => {
    expect(await rejected({ ...linkedin, linkedinParams: { country: 'KP' } }, '#/linkedinParams/country')).toContain(LIST_NAME);
  });
});

describe('decisionMakerTitles', () => {
  it.each([
    ['google_maps', maps],
    ['linkedin', linkedin],
  ])('when it comes with source %s, then 400 at #/decisionMakerTitles', async (_name, base) => {
    await rejected({ ...base, decisionMakerTitles: ['Founder'] }, '#/decisionMakerTitles');
  });

  it('when it is empty, then 400', async () => {
    await rejected({ ...shopify, decisionMakerTitles: [] }, '#/decisionMakerTitles');
  });

  it('when it holds 21 titles, then 400', async () => {
    const titles = Array.from({ length: 21 }, (_, i) => `Title ${i}`);
    await rejected({ ...shopify, decisionMakerTitles: titles }, '#/decisionMakerTitles');
  });

  it('when a title is empty, then 400 at that item', async () => {
    await rejected({ ...shopify, decisionMakerTitles: ['Founder', ''] }, '#/decisionMakerTitles/1');
  });

  it('when a title is not a string, then 400 at that item', async () => {
    await rejected({ ...shopify, decisionMakerTitles: [3] }, '#/decisionMakerTitles/0');
  });

  it('when it holds 1 or 20 titles with shopify, then it is accepted', async () => {
    expect(await accepted({ ...shopify, decisionMakerTitles: ['Founder'] })).toMatchObject({ decisionMakerTitles: ['Founder'] });
    const twenty = Array.from({ length: 20 }, (_, i) => `Title ${i}`);
    expect(await accepted({ ...shopify, decisionMakerTitles: twenty })).toMatchObject({ decisionMakerTitles: twenty });
  });
});

describe('requiredChannels', () => {
  it.each([
    ['google_maps', maps],
    ['linkedin', linkedin],
  ])('when it comes with source %s, then 400 at #/requiredChannels', async (_name, base) => {
    await rejected({ ...base, requiredChannels: ['email'] }, '#/requiredChannels');
  });

  it('when a value is not email, phone or linkedin, then 400 at that item', async () => {
    await rejected({ ...shopify, requiredChannels: ['email', 'fax'] }, '#/requiredChannels/1');
  });

  it('when a value is repeated, then 400 at the duplicate', async () => {
    await rejected({ ...shopify, requiredChannels: ['phone', 'phone'] }, '#/requiredChannels/1');
  });

  it('when it holds unique channels with shopify, then it is accepted', async () => {
    expect(await accepted({ ...shopify, requiredChannels: ['email', 'phone', 'linkedin'] })).toMatchObject({
      requiredChannels: ['email', 'phone', 'linkedin'],
    });
  });
});

describe('the body as a whole', () => {
  it('when it holds an unknown top-level field, then 400 at that field', async () => {
    await rejected({ ...maps, limit: 10 }, '#/limit');
  });

  it('when it is a JSON array, then 400 validation_failed', async () => {
    const problems = expectValidationProblem(await generate(world, account, [maps]));
    expect(problems).toHaveLength(1);
  });

  it('when it has several problems, then all of them are listed', async () => {
    const res = await generate(world, account, { state: 'US', maxResults: 0, colour: 'blue' });
    const pointers = expectValidationProblem(res).map((p) => p.pointer);
    expect(pointers.sort()).toEqual(['#/category', '#/colour', '#/maxResults']);
    expect(res.body.detail).toMatch(/3/);
  });

  it('when every field is wrong at once, then every field is listed', async () => {
    const res = await generate(world, account, {
      source: 'google_maps',
      category: '',
      state: 'XX',
      city: 'c'.repeat(201),
      keyword: 'sandbox:bogus',
      maxResults: 101,
      linkedinParams: {},
      decisionMakerTitles: ['x'],
      requiredChannels: ['email'],
    });
    expect(
      expectValidationProblem(res)
        .map((p) => p.pointer)
        .sort(),
    ).toEqual(
      [
        '#/category',
        '#/city',
        '#/decisionMakerTitles',
        '#/keyword',
        '#/linkedinParams',
        '#/maxResults',
        '#/requiredChannels',
        '#/state',
      ].sort(),
    );
  });

  it('when rejected, then no job is created', async () => {
    const who = await buildAccount(world.db);
    const res = await generate(world, who, { ...maps, maxResults: 0 });
    expect(res.status).toBe(400);
    expect(await world.db.job.count({ where: { accountId: who.accountId } })).toBe(0);
  });
});

describe('sandbox directives in the keyword', () => {
  it.each(['sandbox:bogus', 'sandbox:only=x', 'sandbox:', 'sandbox:empty=1', 'sandbox:delay=1=2'])(
    'when the keyword is the malformed directive %s, then 400 at #/keyword',
    async (keyword) => {
      expect(await rejected({ ...maps, keyword }, '#/keyword')).toMatch(/^keyword/);
    },
  );

  it('when the directive is well formed, then it is accepted', async () => {
    expect(await accepted({ ...maps, keyword: 'sandbox:only=3;delay=5' })).toMatchObject({ keyword: 'sandbox:only=3;delay=5' });
  });
});

describe('POST /leads/generate: filters (decision 038)', () => {
  it('when each source gets its own filters, then they are accepted and stored as sent', async () => {
    const mapsFilters = { minRating: 4.2, minReviewCount: 20, priceLevels: ['moderate'], requireWebsite: true, includeClosed: true };
    expect((await accepted({ ...maps, filters: mapsFilters })).filters).toEqual(mapsFilters);
    expect((await accepted({ ...linkedin, filters: { requireEmail: true } })).filters).toEqual({ requireEmail: true });
    const storeFilters = { minEstimatedSales: 100_000, maxEstimatedSales: 900_000, technologies: ['Klaviyo'], createdAfter: '2020-02-29' };
    expect((await accepted({ ...shopify, filters: storeFilters })).filters).toEqual(storeFilters);
  });

  it('when filters is empty, then it is the same request as none', async () => {
    expect(await accepted({ ...maps, filters: {} })).not.toHaveProperty('filters');
  });

  it("when a filter belongs to another source, then 400 naming the source's filters", async () => {
    expect(await rejected({ ...linkedin, filters: { minRating: 4 } }, '#/filters/minRating')).toMatch(/not a linkedin filter/);
    expect(await rejected({ ...maps, filters: { minProductCount: 4 } }, '#/filters/minProductCount')).toMatch(/not a google_maps filter/);
  });

  it('when a filter value is out of range or of the wrong type, then 400 at its pointer, every problem at once', async () => {
    const res = await generate(world, account, {
      ...maps,
      filters: { minRating: 6, minReviewCount: -1, priceLevels: ['cheap'], requirePhone: false, requireEmail: 'yes' },
    });
    expect(
      expectValidationProblem(res)
        .map((p) => p.pointer)
        .sort(),
    ).toEqual([
      '#/filters/minRating',
      '#/filters/minReviewCount',
      '#/filters/priceLevels/0',
      '#/filters/requireEmail',
      '#/filters/requirePhone',
    ]);
    expect(await rejected({ ...shopify, filters: { createdAfter: '2021-02-29' } }, '#/filters/createdAfter')).toMatch(/YYYY-MM-DD/);
    expect(await rejected({ ...shopify, filters: { createdAfter: '2020-13-01' } }, '#/filters/createdAfter')).toMatch(/YYYY-MM-DD/);
    expect(await rejected({ ...shopify, filters: { minEstimatedSales: 10, maxEstimatedSales: 5 } }, '#/filters')).toMatch(
      /minEstimatedSales/,
    );
    expect(await rejected({ ...maps, filters: 'rated' }, '#/filters')).toMatch(/must be an object/);
  });
});
