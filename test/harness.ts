import { randomBytes } from 'node:crypto';
import supertest from 'supertest';
import { loadConfig, type Config } from '@leadgen/config';
import { createDatabase, type Database } from '@leadgen/db';
import { startApi, type RunningApi } from '../apps/api/src/start-api';
import { OpenApiResponses } from '../apps/api/test/support/openapi-responses';
import { startWorker, type RunningWorker } from '../apps/worker/src/start-worker';
import type { TestAccount } from './factories';

/**
 * A test file's own world: its queue prefix (so its workers only see its jobs), its API on port 0,
 * optionally its in-process worker (its accounts and other data: ./factories). Files run in
 * parallel without meeting.
 */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    ...process.env,
    QUEUE_PREFIX: `lgtest-${randomBytes(5).toString('hex')}`,
    PORT: '0',
    SANDBOX_PAGE_DELAY_MS: '5',
    SYNC_WAIT_MS: '5000',
    SHUTDOWN_GRACE_MS: '2000',
    WORKER_LOCK_MS: '2000',
    WORKER_STALLED_CHECK_MS: '1000',
    ...overrides,
  });
}

export interface TestWorld {
  config: Config;
  api: RunningApi;
  worker: RunningWorker | null;
  db: Database;
  http: supertest.Agent;
  close(): Promise<void>;
}

let openApi: OpenApiResponses | undefined;

export async function startWorld(options: { worker?: boolean; env?: Record<string, string> } = {}): Promise<TestWorld> {
  const config = testConfig(options.env);
  const api = await startApi(config);
  // Every response a component test receives must be one the served OpenAPI document describes.
  const undocumented = (openApi ??= new OpenApiResponses()).watch(api.server);
  const worker = options.worker === false ? null : await startWorker(config);
  const db = createDatabase(config.database.url, { poolSize: 4 });
  return {
    config,
    api,
    worker,
    db,
    http: supertest.agent(api.server),
    async close() {
      await worker?.close();
      await api.close();
      await db.$disconnect();
      if (undocumented.length > 0) throw new Error(`responses that leave the OpenAPI document:\n${[...new Set(undocumented)].join('\n')}`);
    },
  };
}

let keyCounter = 0;
export function idempotencyKey(): string {
  keyCounter += 1;
  return `test-${Date.now()}-${keyCounter}-${randomBytes(4).toString('hex')}`;
}

/** POST /api/v1/leads/generate with a fresh Idempotency-Key unless one is given. */
export function generate(world: TestWorld, account: TestAccount, body: unknown, headers: Record<string, string> = {}) {
  return world.http
    .post('/api/v1/leads/generate')
    .set(account.auth)
    .set('Idempotency-Key', headers['Idempotency-Key'] ?? idempotencyKey())
    .set(headers)
    .send(body as object);
}

/** Polls a job until it is terminal (bounded), returning the final body. */
export async function pollUntilTerminal(world: TestWorld, account: TestAccount, jobId: string, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await world.http.get(`/api/v1/leads/jobs/${jobId}`).set(account.auth);
    if (res.status !== 200) throw new Error(`poll answered ${res.status}: ${JSON.stringify(res.body)}`);
    if (res.body.terminal) return res.body;
    if (Date.now() > until) throw new Error(`job ${jobId} not terminal after ${timeoutMs} ms (status ${res.body.status})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export { freePort, startWorkerProcess, type WorkerProcess } from '@leadgen/testing';

/** Reads until `done` says so, every 100 ms; past `timeoutMs` fails naming `what` and the last value read. */
export async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached in ${timeoutMs} ms (last: ${JSON.stringify(value)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
