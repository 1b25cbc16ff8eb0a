import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createDatabase, type Database } from '@leadgen/db';
import { buildAccount, buildApiKey } from '../factories';
import { ROOT, startApiProcess, type ApiProcess } from '@leadgen/testing';

// Two API processes that share one Redis and one PostgreSQL, each keeping live keys in memory for a
// minute: a revocation by the operator's command must be refused by both from the next request on.
const env = { QUEUE_PREFIX: `lgtest-${randomBytes(5).toString('hex')}`, AUTH_CACHE_MS: '60000', WORKER_QUEUES: '' };

function admin(...args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/admin/src/main.ts'), ...args, '--json'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`admin ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

const statusOf = async (api: ApiProcess, apiKey: string, route = '/api/v1/account') =>
  (await fetch(`${api.origin}${route}`, { headers: { Authorization: `Bearer ${apiKey}` } })).status;

describe('revocation on every API process at once', () => {
  let db: Database;
  let apis: ApiProcess[] = [];
  beforeAll(async () => {
    db = createDatabase(process.env.DATABASE_URL!, { poolSize: 2 });
    apis = await Promise.all([startApiProcess(env), startApiProcess(env)]);
  }, 120_000);
  afterAll(async () => {
    const stopped = await Promise.allSettled(apis.map((api) => api.stop()));
    await db.$disconnect();
    for (const s of stopped) if (s.status === 'rejected') throw s.reason;
  });

  it('when the operator revokes a key by id between two requests, then the next request on either process is 401', async () => {
    const account = await buildAccount(db, { credits: 0 });
    const other = await buildApiKey(db, account.accountId);
    for (const api of apis) {
      expect(await statusOf(api, account.apiKey)).toBe(200);
      expect(await statusOf(api, account.apiKey, '/api/v1/leads/jobs')).toBe(200);
      expect(await statusOf(api, other.apiKey)).toBe(200);
    }
    const { id: keyId } = (await db.apiKey.findFirst({ where: { accountId: account.accountId, id: { not: other.keyId } } }))!;
    expect(admin('key:revoke', '--id', keyId)).toMatchObject({ revoked: true, everywhere: true });
    // The operator's revocation is in the account's audit trail.
    const trail = admin('audit:show', '--account', account.accountId) as {
      rows: Array<{ action: string; actor: string; summary: string }>;
    };
    expect(trail.rows[0]).toMatchObject({ action: 'key.revoked', actor: 'operator', summary: JSON.stringify({ keyId }) });
    for (const api of apis) {
      expect(await statusOf(api, account.apiKey)).toBe(401);
      expect(await statusOf(api, account.apiKey, '/api/v1/leads/jobs')).toBe(401);
      // The account's other key was dropped from the cache with it, read again, and still works.
      expect(await statusOf(api, other.apiKey)).toBe(200);
    }
  }, 60_000);

  it('when the operator revokes by the key itself while both processes are busy with it, then nothing after the command is accepted', async () => {
    const account = await buildAccount(db, { credits: 0 });
    let revoked = false;
    const lateAnswers: number[] = [];
    let stop = false;
    // A hostile client keeps both processes busy with the key while it is being revoked.
    const hammer = apis.map(async (api) => {
      while (!stop) {
        const startedAfter = revoked;
        const status = await statusOf(api, account.apiKey);
        if (startedAfter) lateAnswers.push(status);
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    admin('key:revoke', '--key', account.apiKey);
    revoked = true;
    await new Promise((resolve) => setTimeout(resolve, 300));
    stop = true;
    await Promise.all(hammer);
    expect(lateAnswers.length).toBeGreaterThan(0);
    expect(new Set(lateAnswers)).toEqual(new Set([401]));
  }, 60_000);

  it('when a key reaches its expiry, then the next request on either process is 401 although both cached it', async () => {
    const account = await buildAccount(db, { credits: 0 });
    const key = await buildApiKey(db, account.accountId, { expiresAt: new Date(Date.now() + 1_500) });
    for (const api of apis) expect(await statusOf(api, key.apiKey)).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    for (const api of apis) expect(await statusOf(api, key.apiKey)).toBe(401);
  }, 30_000);
});
