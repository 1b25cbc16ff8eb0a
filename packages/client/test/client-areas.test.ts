import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { CLIENT_VERSION, LeadgenClient, LeadgenError, LeadgenTimeoutError, OPERATION_METHODS } from '../src/index.js';
import { openApiDocument } from '../../../apps/api/src/openapi/openapi-document.js';
import { startWorld, type TestWorld } from '../../../test/harness.js';
import { buildAccount, type TestAccount } from '../../../test/factories.js';
import { startApiProcess, type ApiProcess } from '@leadgen/testing';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

describe('@leadgen/client covers the document', () => {
  it('when the document has an operation, then the client has a method for it (named in OPERATION_METHODS) that exists', () => {
    const doc = openApiDocument() as { paths: Record<string, Record<string, { operationId?: string }>> };
    const ids = Object.values(doc.paths).flatMap((item) =>
      METHODS.map((m) => item[m]?.operationId).filter((id): id is string => Boolean(id)),
    );
    const client = new LeadgenClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'x' }) as unknown as Record<string, Record<string, unknown>>;
    const table = OPERATION_METHODS as Record<string, string>;
    const missing = ids
      .filter((id) => {
        const [area, method] = (table[id] ?? '.').split('.');
        return typeof client[area!]?.[method!] !== 'function';
      })
      .map(
        (id) =>
          `operation ${id} has no method in @leadgen/client: add one to its area (packages/client/src/*-api.ts) and name it in OPERATION_METHODS (packages/client/src/operations.ts)`,
      );
    expect(missing).toEqual([]);
    expect(Object.keys(table).filter((id) => !ids.includes(id))).toEqual([]);
  });

  it('when packed, then its User-Agent names the package version', () => {
    const manifest = JSON.parse(readFileSync(path.join(__dirname, '../package.json'), 'utf8')) as { version: string };
    expect(CLIENT_VERSION).toBe(manifest.version);
  });
});

describe('@leadgen/client against a server that never answers', () => {
  let server: Server;
  let baseUrl: string;
  beforeAll(async () => {
    server = createServer(() => undefined); // takes the request, never answers
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('when the timeout passes, then a LeadgenTimeoutError, per client and per call', async () => {
    const started = Date.now();
    await expect(new LeadgenClient({ baseUrl, apiKey: 'x', timeoutMs: 300 }).account.get()).rejects.toMatchObject({
      name: 'LeadgenTimeoutError',
      kind: 'request',
      timeoutMs: 300,
    });
    await expect(new LeadgenClient({ baseUrl, apiKey: 'x' }).jobs.get('job_x', { timeoutMs: 200 })).rejects.toBeInstanceOf(
      LeadgenTimeoutError,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

/** The areas against an API process, as a consumer's code meets it. */
describe('@leadgen/client areas against an API process', () => {
  let world: TestWorld;
  let account: TestAccount;
  let api: ApiProcess;
  let client: LeadgenClient;
  const agents: string[] = [];

  beforeAll(async () => {
    world = await startWorld();
    account = await buildAccount(world.db, { credits: 100_000 });
    api = await startApiProcess({
      DATABASE_URL: world.config.database.url,
      REDIS_URL: world.config.redis.url,
      QUEUE_PREFIX: world.config.redis.queuePrefix,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1',
    });
    const watched: typeof fetch = (input, init) => {
      agents.push(new Headers(init?.headers).get('User-Agent') ?? '');
      return fetch(input, init);
    };
    client = new LeadgenClient({ baseUrl: api.origin, apiKey: account.apiKey, fetch: watched, userAgent: 'crm-sync/2.1' });
  }, 120_000);
  afterAll(async () => {
    await api?.stop();
    await world?.close();
  });

  it('when a job is generated twice with one key, then the second is marked replayed; every result carries its request id and rate limit', async () => {
    const first = await client.jobs.generate({ category: 'dentist', state: 'US', maxResults: 4 }, { idempotencyKey: 'areas-1' });
    const again = await client.jobs.generate({ category: 'dentist', state: 'US', maxResults: 4 }, { idempotencyKey: 'areas-1' });
    expect(again.jobId).toBe(first.jobId);
    expect(first.meta.replayed).toBe(false);
    expect(again.meta.replayed).toBe(true);
    expect(first.meta.requestId).toMatch(/./);
    expect(first.meta.rateLimit).toMatchObject({ policy: 'generate', limit: expect.any(Number), remaining: expect.any(Number) });
    expect(JSON.stringify(first)).not.toContain('requestId'); // meta is beside the body, not in it
    expect(agents.at(-1)).toBe(`crm-sync/2.1 leadgen-client/${CLIENT_VERSION}`);
    const error = await client.jobs.get('job_000000000000000000000000').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeadgenError);
    expect((error as LeadgenError).meta).toMatchObject({ status: 404, requestId: expect.any(String) });
  });

  it('when jobs and leads are listed, then the iterators yield items across pages, and downloads stream', async () => {
    const job = await client.jobs.generate({ category: 'bakery', state: 'FR', maxResults: 5 });
    const jobs: string[] = [];
    for await (const listed of client.jobs.list({ limit: 1 })) jobs.push(listed.jobId);
    expect(jobs.length).toBeGreaterThanOrEqual(2);
    expect(jobs[0]).toBe(job.jobId);
    const positions: number[] = [];
    for await (const item of client.leads.list({ ofJob: job.jobId }, { limit: 2 })) positions.push(item.position);
    expect(positions).toEqual([0, 1, 2, 3, 4]);
    const bySet: string[] = [];
    for await (const item of client.leads.list({ resultSet: job.resultSetId })) bySet.push(item.lead.businessName);
    expect(bySet).toEqual(job.leads.map((lead) => lead.businessName));
    const streamed: string[] = [];
    for await (const item of client.leads.stream({ jobId: job.jobId })) streamed.push(item.lead.businessName);
    expect(streamed).toEqual(bySet);
    const csv = await client.leads.csv({ ofJob: job.jobId });
    expect((await new Response(csv.body).text()).trimEnd().split('\r\n')).toHaveLength(6);
    expect(csv.meta.status).toBe(200);
    const page = await client.leads.jobPage(job.jobId, { limit: 2 });
    expect(page).toMatchObject({ complete: true, nextCursor: expect.any(String) });
    expect((await client.leads.resultSetPage(job.resultSetId)).items).toHaveLength(5);
    expect((await client.leads.page({ jobId: job.jobId })).items).toHaveLength(5);
  });

  it('when a job would outlast maxWaitMs, then the wait ends with a LeadgenTimeoutError naming the job', async () => {
    const started = await client.jobs.generate(
      { category: 'dentist', state: 'US', keyword: 'sandbox:delay=3000', maxResults: 2 },
      { wait: false },
    );
    await expect(client.jobs.waitFor(started.jobId, { maxWaitMs: 300 })).rejects.toMatchObject({
      name: 'LeadgenTimeoutError',
      kind: 'wait',
      jobId: started.jobId,
    });
    await client.jobs.cancel(started.jobId).catch(() => undefined);
  });

  it('when the account, suppressions and meta are asked, then each answers typed', async () => {
    expect((await client.account.get()).credits.available).toBeGreaterThan(0);
    expect((await client.suppressions.add({ emails: ['x@example.org'] })).added).toBe(1);
    const entries = [];
    for await (const entry of client.suppressions.list({ kind: 'email' })) entries.push(entry.value);
    expect(entries).toEqual(['x@example.org']);
    expect((await client.suppressions.remove({ emails: ['x@example.org'] })).removed).toBe(1);
    expect((await client.meta.tariffs()).tariffs.google_maps.perItem).toBeGreaterThan(0);
    expect((await client.meta.linkedinCountries()).countries.length).toBeGreaterThan(0);
    expect((await client.meta.shopifyCategories()).categories).toContainEqual(expect.objectContaining({ path: '/Apparel/Footwear' }));
    expect((await client.meta.health()).status).toBe('ok');
    expect((await client.meta.ready()).status).toBe('ready');
    expect((await client.meta.openApi()).openapi).toBe('3.1.0');
  });

  it('when webhooks are managed and a delivery is verified, then verify returns the event and refuses a forgery', async () => {
    const endpoint = await client.webhooks.create({ url: 'http://127.0.0.1:9/client', events: ['job.completed'] });
    expect((await client.webhooks.list()).items.map((e) => e.id)).toContain(endpoint.id);
    expect((await client.webhooks.update(endpoint.id, { description: 'from the client' })).description).toBe('from the client');
    const ping = await client.webhooks.ping(endpoint.id);
    const deliveries = [];
    for await (const delivery of client.webhooks.deliveries(endpoint.id)) deliveries.push(delivery.id);
    expect(deliveries).toContain(ping.id);
    const rotated = await client.webhooks.rotateSecret(endpoint.id);
    expect((await client.webhooks.get(endpoint.id)).previousSecretExpiresAt).not.toBeNull();
    // A delivery signed as the worker signs it (Standard Webhooks), checked by the client's helper.
    const payload = JSON.stringify({ type: 'ping', timestamp: new Date().toISOString(), data: { endpointId: endpoint.id } });
    const at = new Date();
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(rotated.secret).sign('msg_1', at, payload),
    };
    expect(client.webhooks.verify(payload, headers, rotated.secret)).toMatchObject({ type: 'ping', data: { endpointId: endpoint.id } });
    expect(client.webhooks.verify(payload, new Headers(headers), rotated.secret).type).toBe('ping');
    expect(() => client.webhooks.verify(payload.replace('ping', 'pong'), headers, rotated.secret)).toThrow();
    expect(() => client.webhooks.verify(payload, headers, endpoint.secret)).toThrow();
    expect((await client.webhooks.delete(endpoint.id)).meta.status).toBe(204);
    expect((await client.webhooks.revealDefaultSecret()).secret).toMatch(/^whsec_/);
    expect((await client.webhooks.rotateDefaultSecret()).secret).toMatch(/^whsec_/);
  });
});
