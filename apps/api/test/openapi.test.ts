import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import metaSchema from '@seriousme/openapi-schema-validator/schemas/v3.1/schema.json';
import Joi from 'joi';
import { generateRequestSchema } from '../src/routes/leads/generate-schema';
import { objectionBodySchema } from '../src/routes/privacy/privacy-schema';
import { areaBatchSchema } from '../src/routes/leads/area-schema';
import { updateMonitorSchema } from '../src/routes/monitors/monitors-schema';
import { webhookUrl } from '../src/routes/webhooks/webhooks-schema';
import { joiToOpenApi } from '../src/openapi/joi-schema';
import { PROBLEM_CODES, openApiDocument } from '../src/openapi/openapi-document';
import { startWorld, type TestWorld } from '../../../test/harness';
import { OpenApiResponses } from './support/openapi-responses';

const ROOT = path.resolve(__dirname, '../../..');
type Schema = Record<string, unknown> & { format?: string };

describe('the OpenAPI document', () => {
  const doc = openApiDocument() as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walked by key

  it('when checked against the OpenAPI 3.1 schema, then it is a valid document with every $ref resolving', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addFormat('media-range', true); // the meta-schema's own format for content keys
    const validate = ajv.compile(metaSchema);
    expect(validate.errors ?? []).toEqual([]);
    expect(validate(doc)).toBe(true);
    const refs = JSON.stringify(doc).match(/"\$ref":"#\/[^"]+"/g) ?? [];
    for (const ref of refs) {
      const target = ref
        .slice(9, -1)
        .split('/')
        .slice(1)
        .reduce((node: any, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc); // eslint-disable-line @typescript-eslint/no-explicit-any
      expect([ref, target !== undefined]).toEqual([ref, true]);
    }
    // Every schema compiles (as JSON Schema 2020-12, OpenAPI 3.1's dialect).
    ajv.addSchema({ ...doc, $id: 'doc' });
    for (const name of Object.keys(doc.components.schemas))
      expect(() => ajv.compile({ $ref: `doc#/components/schemas/${name}` })).not.toThrow();
  });

  it('when compared with docs/errors.md, then the Problem schema lists exactly its codes', () => {
    const table = readFileSync(path.join(ROOT, 'docs/errors.md'), 'utf8');
    const codes = [...table.matchAll(/^\| \d{3} \| `([a-z_]+)` \|/gm)].map((m) => m[1]);
    expect([...new Set(codes)].sort()).toEqual([...PROBLEM_CODES].sort());
    expect(doc.components.schemas.Problem.properties.code.enum).toEqual([...PROBLEM_CODES]);
  });

  it('when a request is valid or not for Joi, then the derived request schema agrees wherever JSON Schema can say it', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ ...doc, $id: 'doc' });
    const schema = ajv.compile({ $ref: 'doc#/components/schemas/GenerationRequestInput' });
    const samples: unknown[] = [
      { category: 'dentist', state: 'US' },
      { category: 'dentist', state: 'US', city: 'Austin', keyword: 'kids', maxResults: 100 },
      {
        source: 'linkedin',
        category: 'cto',
        state: 'DE',
        linkedinParams: { title: ['CTO', 'VP'], seniority: ['vp'], companySize: ['11-50'] },
      },
      { source: 'shopify', category: 'apparel', state: 'US', decisionMakerTitles: ['Founder'], requiredChannels: ['email'] },
      { category: 'dentist' },
      { state: 'US' },
      { category: 'dentist', state: 'US', maxResults: 0 },
      { category: 'dentist', state: 'US', maxResults: 101 },
      { category: 'dentist', state: 'US', maxResults: 2.5 },
      { category: 'dentist', state: 'US', maxResults: '10' },
      { category: '', state: 'US' },
      { category: 'x'.repeat(201), state: 'US' },
      { category: 'dentist', state: 'US', colour: 'red' },
      { source: 'bing', category: 'dentist', state: 'US' },
      { source: 'linkedin', category: 'cto', state: 'DE', linkedinParams: { seniority: ['boss'] } },
      { source: 'linkedin', category: 'cto', state: 'DE', linkedinParams: { nope: 1 } },
      { source: 'shopify', category: 'apparel', state: 'US', requiredChannels: ['fax'] },
      { category: 'dentist', state: 'US', linkedinParams: { title: 'CTO' } },
      { source: 'linkedin', category: 'cto', state: 'DE', requiredChannels: ['email'] },
      { source: 'linkedin', category: 'cto', state: 'Germany' },
      { source: 'linkedin', category: 'cto', state: ' de ' },
      { category: 'dentist', state: 'U' },
      { category: 'dentist', state: 42 },
      [],
      'text',
    ];
    for (const sample of samples) {
      const joi = generateRequestSchema.validate(sample, { abortEarly: false }).error === undefined;
      expect([sample, schema(sample)]).toEqual([sample, joi]);
    }
  });

  it('when a Joi schema says exactly one (xor) or at most one (oxor) of some keys, then the derived schema refuses what Joi refuses', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const atMostOne = Joi.object({ a: Joi.string(), b: Joi.string(), c: Joi.number() }).oxor('a', 'b');
    const cases: Array<[Joi.Schema, unknown[]]> = [
      [
        objectionBodySchema,
        [
          { email: 'a@example.com' },
          { domain: 'example.com' },
          { phone: '+15125550100' },
          {},
          { email: 'a@example.com', domain: 'example.com' },
        ],
      ],
      [atMostOne, [{}, { a: 'x' }, { b: 'y', c: 1 }, { a: 'x', b: 'y' }, { a: 'x', b: 'y', c: 1 }]],
    ];
    for (const [joi, samples] of cases) {
      const derived = ajv.compile(joiToOpenApi(joi));
      for (const sample of samples) expect([sample, derived(sample)]).toEqual([sample, joi.validate(sample).error === undefined]);
    }
    // The document's objection body is that derived schema, not a copy written beside it.
    const { 'x-component': _name, ...objection } = joiToOpenApi(objectionBodySchema);
    expect(doc.components.schemas.ObjectionRequest).toEqual(objection);
  });

  it('when a Joi schema says nand, with or without (beside an xor or alone), then the derived schema refuses what Joi refuses', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const keys = { a: Joi.string(), b: Joi.string(), c: Joi.string(), d: Joi.number() };
    const all = [
      {},
      { a: 'x' },
      { b: 'y' },
      { c: 'z' },
      { a: 'x', b: 'y' },
      { a: 'x', c: 'z' },
      { b: 'y', c: 'z' },
      { a: 'x', b: 'y', c: 'z' },
    ];
    const cases: Array<[string, Joi.ObjectSchema]> = [
      ['nand of two', Joi.object(keys).nand('a', 'b')],
      ['nand of three', Joi.object(keys).nand('a', 'b', 'c')],
      ['with', Joi.object(keys).with('a', ['b', 'c'])],
      ['without', Joi.object(keys).without('a', ['b', 'c'])],
      ['with and without', Joi.object(keys).with('a', 'b').without('c', 'a')],
      // an area batch's form: exactly one of a and c, a with b, c without a and b
      ['xor with both', Joi.object(keys).xor('a', 'c').with('a', 'b').without('c', ['a', 'b'])],
    ];
    for (const [name, joi] of cases) {
      const derived = ajv.compile(joiToOpenApi(joi));
      for (const sample of [...all, ...all.map((s) => ({ ...s, d: 1 }))])
        expect([name, sample, derived(sample)]).toEqual([name, sample, joi.validate(sample).error === undefined]);
    }

    // The document's bodies, through the components they refer to.
    ajv.addSchema({ ...doc, $id: 'doc' });
    const area = { bbox: { south: 41.85, west: -87.7, north: 41.9, east: -87.6 } };
    const request = { category: 'dentist', state: 'US' };
    const quoteId = 'quo_0123456789abcdefghijklmn';
    const bodies: Array<[string, Joi.Schema, unknown[], object?]> = [
      [
        'AreaBatchRequest',
        areaBatchSchema,
        [
          { quoteId, maxCredits: 10 },
          { area, request, maxResults: 500, name: 'Chicago' },
          { area, request, quoteId },
          { quoteId, request },
          { area },
          { request },
          {},
        ],
      ],
      [
        'MonitorUpdate',
        updateMonitorSchema,
        [{ name: 'n' }, { request }, { batch: { requests: [request] } }, { request, batch: { requests: [request] } }, {}],
        { context: { minIntervalMs: 3_600_000 } },
      ],
    ];
    for (const [name, joi, samples, options] of bodies) {
      const derived = ajv.compile({ $ref: `doc#/components/schemas/${name}` });
      for (const sample of samples)
        expect([name, sample, derived(sample)]).toEqual([name, sample, joi.validate(sample, options).error === undefined]);
    }
  });

  it('when a Joi schema states a format, then the derived document keeps it (a custom rule states it with .meta)', () => {
    const queryOf = (path: string, name: string) =>
      (doc.paths[path].get.parameters as Array<{ name: string; schema: { format?: string } }>).find((p) => p.name === name)!.schema;
    expect(doc.components.schemas.BatchRequest.properties.webhookUrl.format).toBe('uri');
    expect(doc.components.schemas.MonitorInput.properties.webhookUrl.format).toBe('uri');
    expect(queryOf('/api/v1/leads/jobs', 'createdAfter').format).toBe('date-time');
    expect(queryOf('/api/v1/account/usage', 'from').format).toBe('date');
    const email = joiToOpenApi(Joi.object({ to: Joi.string().email(), at: Joi.date().iso() })) as { properties: Record<string, Schema> };
    expect([email.properties.to!.format, email.properties.at!.format]).toEqual(['email', 'date-time']);
    // `uri` is what the service takes: what JSON Schema's format refuses, Joi refuses too (a WHATWG parser would not).
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    const uri = ajv.compile(joiToOpenApi(webhookUrl({ allowHttp: true })));
    for (const url of [
      'https://example.com/hook',
      'http://127.0.0.1:8080/x?a=1',
      'https://example.com/a b',
      'https://bücher.example/',
      'hook',
    ])
      expect([url, uri(url)]).toEqual([url, webhookUrl({ allowHttp: true }).validate(url).error === undefined]);
  });

  it('when a listing is downloaded, then its document lists the JSON page query but the page size and format it ignores', () => {
    const names = (path: string) =>
      (doc.paths[path].get.parameters as Array<{ name: string; in: string }>).filter((p) => p.in === 'query').map((p) => p.name);
    expect(names('/api/v1/leads')).toEqual(['limit', 'cursor', 'source', 'jobId', 'createdAfter', 'createdBefore', 'format']);
    expect(names('/api/v1/leads.csv')).toEqual(['cursor', 'source', 'jobId', 'createdAfter', 'createdBefore']);
    expect(names('/api/v1/account/ledger.csv')).toEqual(['cursor', 'createdAfter', 'createdBefore']);
    const status = (doc.paths['/api/v1/leads/jobs'].get.parameters as Array<Record<string, unknown>>).find((p) => p.name === 'status');
    expect(status).toMatchObject({ style: 'form', explode: false, schema: { type: 'array', minItems: 1 } });
  });

  it('when a response leaves the document, then the response checker reports it', () => {
    const checker = new OpenApiResponses();
    expect(
      checker.check(
        'GET',
        '/api/v1/account',
        200,
        'application/json',
        '{"accountId":"a","name":"n","mode":"live","credits":{"balance":1,"reserved":0,"available":1}}',
      ),
    ).toBeNull();
    expect(checker.check('GET', '/api/v1/account', 200, 'application/json', '{"accountId":"a"}')).toMatch(/credits/);
    expect(checker.check('GET', '/api/v1/account', 200, 'text/html', '<p>')).toMatch(/content type/);
    expect(
      checker.check(
        'GET',
        '/api/v1/leads/jobs/job_x',
        404,
        'application/problem+json',
        '{"type":"t","title":"t","status":404,"detail":"d","code":"nope"}',
      ),
    ).toMatch(/code/);
    expect(
      checker.check('GET', '/api/v1/leads/jobs?limit=1', 200, 'application/json', '{"items":[{"jobId":"j"}],"nextCursor":null}'),
    ).not.toBeNull();
  });
});

describe('GET /api/v1/openapi.json and /docs', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startWorld({ worker: false });
  });
  afterAll(() => world.close());

  it('when the document is asked for, then it is served without a key', async () => {
    const res = await world.http.get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/api/v1/leads/generate', '/api/v1/leads/jobs', '/api/v1/leads']));
  });

  it('when /docs is opened, then the page and every asset it names come from this process, under a policy that lets them run', async () => {
    const page = await world.http.get('/docs/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const csp = page.headers['content-security-policy'] as string;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:/);
    expect(page.text).not.toMatch(/(src|href)="(https?:)?\/\//);
    const assets = [...page.text.matchAll(/(?:src|href)="\.\/([^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toEqual(expect.arrayContaining(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-init.js']));
    for (const asset of assets) expect([asset, (await world.http.get(`/docs/${asset}`)).status]).toEqual([asset, 200]);
    const init = await world.http.get('/docs/swagger-ui-init.js');
    expect(init.text).toContain('/api/v1/openapi.json');
  });
});
