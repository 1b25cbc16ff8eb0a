import { createWebhookEndpoint } from '@leadgen/db';
import { newWebhookSecret } from '@leadgen/domain';
import { startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';
import { rawRequest, type RawAnswer } from '../../../test/raw-http';

// A cursor is opaque, but a client can decode and re-encode it: every key it carries is checked
// against what the SQL behind the listing accepts, so a tampered one is a 400 with a pointer, never a 500.
let world: TestWorld;
let account: TestAccount;

beforeAll(async () => {
  world = await startWorld({ worker: false });
  account = await buildAccount(world.db, { credits: 10_000 });
});
afterAll(() => world.close());

const cursor = (keys: unknown[]) => Buffer.from(JSON.stringify(keys)).toString('base64url');
const get = (path: string) => rawRequest(world.api.port, { method: 'GET', path, headers: account.auth });

function expectBadCursor(res: RawAnswer): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status: 400, code: 'validation_failed' });
  expect([...new Set((res.body?.errors as Array<{ pointer: string }>).map((e) => e.pointer))]).toEqual(['#/cursor']);
}

const NUL = 'a\u0000b';
const BEYOND_INT4 = 2 ** 31;
const TIME = '2026-11-22T14:00:00.000Z';

// [listing path, cursor keys] pairs, each a key out of the SQL's range.
const tampered: Array<[string, unknown[]]> = [
  ['/api/v1/leads/jobs', ['j', TIME, NUL]],
  ['/api/v1/leads/jobs', ['j', '+275760-09-13T00:00:00.000Z', 'job_x']],
  ['/api/v1/leads/jobs', ['j', '-271821-04-20T00:00:00.000Z', 'job_x']],
  ['/api/v1/leads/jobs', ['j', '+010000-01-01T00:00:00.000Z', 'job_x']],
  ['/api/v1/leads', ['l', TIME, 'job_x', BEYOND_INT4]],
  ['/api/v1/leads', ['l', TIME, 'job_x', 1e300]],
  ['/api/v1/leads', ['l', TIME, NUL, 1]],
  ['/api/v1/leads', ['l', '+200000-01-01T00:00:00.000Z', 'job_x', 1]],
  ['/api/v1/audit-events', ['a', TIME, NUL]],
  ['/api/v1/audit-events', ['a', '-000100-01-01T00:00:00.000Z', 'aud_x']],
  ['/api/v1/suppressions', ['domain', NUL]],
  [`/api/v1/monitors/mon_${'0'.repeat(24)}/runs`, ['monitor-runs', TIME, NUL]],
  [`/api/v1/monitors/mon_${'0'.repeat(24)}/runs`, ['monitor-runs', '+275760-09-13T00:00:00.000Z', 'mrun_x']],
];

describe('tampered cursors', () => {
  it.each(tampered)('when %s gets a cursor of %j, then 400 validation_failed pointing at #/cursor', async (path, keys) => {
    expectBadCursor(await get(`${path}?cursor=${cursor(keys)}`));
  });

  it('when a cursor carries an id far longer than any id, then 400 pointing at #/cursor', async () => {
    expectBadCursor(await get(`/api/v1/leads/jobs?cursor=${cursor(['j', TIME, 'x'.repeat(10_000)])}`));
  });

  it('when a result set listing gets a position beyond int4 or below 0, then 400 pointing at #/cursor', async () => {
    const job = `job_${'0'.repeat(24)}`;
    for (const position of [BEYOND_INT4, -1, 1.5, Number.MAX_SAFE_INTEGER]) {
      expectBadCursor(await get(`/api/v1/leads/jobs/${job}/leads?cursor=${cursor(['p', position])}`));
    }
  });

  it("when a webhook endpoint's deliveries get a tampered cursor, then 400 pointing at #/cursor", async () => {
    const endpoint = await createWebhookEndpoint(world.db, account.accountId, {
      url: 'https://hooks.example.com/leadgen',
      events: ['job.completed'],
      description: null,
      secret: newWebhookSecret(),
    });
    const id = endpoint!.id;
    for (const keys of [
      ['webhook-deliveries', TIME, NUL],
      ['webhook-deliveries', '+100000-01-01T00:00:00.000Z', 'msg_x'],
    ]) {
      expectBadCursor(await get(`/api/v1/webhooks/${id}/deliveries?cursor=${cursor(keys)}`));
    }
  });

  it('when a listing gets a createdAfter past the year 9999 (by its offset), then 400 pointing at the parameter', async () => {
    const res = await get(`/api/v1/leads/jobs?createdAfter=${encodeURIComponent('9999-12-31T23:59:59-23:59')}`);
    expect({ status: res.status, pointers: (res.body?.errors as Array<{ pointer: string }>).map((e) => e.pointer) }).toEqual({
      status: 400,
      pointers: ['#/createdAfter'],
    });
  });

  it('when an untampered cursor comes back, then it still pages (the checks refuse only what is out of range)', async () => {
    const res = await get(`/api/v1/leads/jobs?cursor=${cursor(['j', TIME, `job_${'0'.repeat(24)}`])}`);
    expect(res.status).toBe(200);
  });
});

describe('ids PostgreSQL cannot hold', () => {
  it.each([
    ['GET', '/api/v1/webhooks/a%00b', 'webhook_endpoint_not_found'],
    ['PATCH', '/api/v1/webhooks/a%00b', 'webhook_endpoint_not_found'],
    ['DELETE', '/api/v1/webhooks/a%00b', 'webhook_endpoint_not_found'],
    ['POST', '/api/v1/webhooks/a%00b/test', 'webhook_endpoint_not_found'],
    ['POST', '/api/v1/webhooks/a%00b/rotate-secret', 'webhook_endpoint_not_found'],
    ['GET', '/api/v1/webhooks/a%00b/deliveries', 'webhook_endpoint_not_found'],
    ['POST', `/api/v1/webhooks/whep_${'0'.repeat(24)}/deliveries/a%00b/retry`, 'webhook_delivery_not_found'],
    ['GET', '/api/v1/leads/jobs/a%00b/webhook-deliveries', 'job_not_found'],
    ['POST', `/api/v1/leads/jobs/job_${'0'.repeat(24)}/webhook-deliveries/a%00b/retry`, 'webhook_delivery_not_found'],
    ['GET', '/api/v1/leads/jobs/a%00b', 'job_not_found'],
    ['GET', '/api/v1/leads/result-sets/a%00b', 'job_not_found'],
    ['GET', '/api/v1/monitors/a%00b', 'monitor_not_found'],
    ['DELETE', '/api/v1/monitors/a%00b', 'monitor_not_found'],
    ['GET', '/api/v1/monitors/a%00b/runs', 'monitor_not_found'],
  ])('when %s %s, then 404 %s', async (method, path, code) => {
    const res = await rawRequest(world.api.port, {
      method,
      path,
      headers: { ...account.auth, 'Content-Type': 'application/json' },
      body: method === 'PATCH' ? '{"description":"x"}' : undefined,
    });
    expect({ status: res.status, code: res.body?.code }).toEqual({ status: 404, code });
  });
});
