import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import { createWebhookProducer, type WebhookProducer } from '@leadgen/queue';
import { startWorld, type TestWorld } from '../harness';
import { buildAccount, type TestAccount } from '../factories';
import { startWebhookReceiver, type WebhookReceiver } from '../webhook-receiver';

// Issue 31, finding 2 (the bench's "webhook tarpit" row): an account whose deliveries all wait for its places
// (WEBHOOK_CONCURRENCY_PER_ACCOUNT, 2 of the 4 slots here, held up to 60 s by a receiver that does not answer) must not
// keep the webhook queue busy with them. A refused delivery is parked outside the queue until one of its account's
// attempts ends, so it is taken once, not again and again (before: after 0.5 s, doubling), ahead of another
// account's; and the end of each attempt wakes the next parked one, so none waits for its backstop.
const TIMEOUT_MS = 60_000;
const SLOTS = 4;
const PER_ACCOUNT_DEFAULT = 2;
const ENDPOINTS = 10;
const PINGS_EACH = 5; // the per-minute allowance of one endpoint

interface Holder {
  url: string;
  requests: number;
  inFlight: number;
  release(): void;
  close(): Promise<void>;
}

/** Holds every request unanswered until released; from then on answers 204 at once. */
async function startHolder(): Promise<Holder> {
  const held: ServerResponse[] = [];
  let holding = true;
  const state = { requests: 0, inFlight: 0 };
  const server: Server = createServer((req, res) => {
    state.requests += 1;
    state.inFlight += 1;
    res.on('close', () => (state.inFlight -= 1));
    req.resume();
    req.on('end', () => (holding ? held.push(res) : res.writeHead(204).end()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    release() {
      holding = false;
      for (const res of held.splice(0)) res.writeHead(204).end();
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  }) as Holder;
}

const until = async (what: string, test: () => Promise<boolean> | boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

let world: TestWorld;
let holder: Holder;
let receiver: WebhookReceiver;
let producer: WebhookProducer;
let attacker: TestAccount;
let other: TestAccount;

beforeAll(async () => {
  world = await startWorld({
    env: {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOK_CONCURRENCY: String(SLOTS),
    },
  });
  holder = await startHolder();
  receiver = await startWebhookReceiver();
  producer = createWebhookProducer(world.config.redis, 'test-webhook-parking');
  attacker = await buildAccount(world.db, { credits: 0 });
  other = await buildAccount(world.db, { credits: 0 });
});
afterAll(async () => {
  holder?.release();
  await producer?.close();
  await world?.close();
  await holder?.close();
  await receiver?.close();
});

const createEndpoint = async (who: TestAccount, url: string) => {
  const res = await world.http
    .post('/api/v1/webhooks')
    .set(who.auth)
    .send({ url, events: ['job.completed'] });
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const ping = async (who: TestAccount, endpoint: string) => {
  const res = await world.http.post(`/api/v1/webhooks/${endpoint}/test`).set(who.auth);
  expect(res.status).toBe(202);
  return res.body.id as string;
};
/** how many times the worker has taken each delivery's queue entry */
const takes = async (ids: readonly string[]) =>
  Promise.all(ids.map(async (id) => (await producer.queue().getJob(id))?.attemptsStarted ?? 0));
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
/**
 * The delivery ids the worker read for an attempt, in order (its statement, seen on its way to the real pool and
 * PostgreSQL: nothing is answered in their place).
 */
function recordReads(): { ids: string[]; stop(): void } {
  const ids: string[] = [];
  const query = Pool.prototype.query;
  Pool.prototype.query = function (this: Pool, ...args: unknown[]) {
    const [text, values] = args;
    if (typeof text === 'string' && text.includes('LEFT JOIN account_webhook_secrets s') && Array.isArray(values))
      ids.push(String(values[0]));
    return Reflect.apply(query, this, args) as unknown;
  } as Pool['query'];
  return { ids, stop: () => void (Pool.prototype.query = query) };
}
const readsOf = (reads: { ids: string[] }, deliveries: readonly string[]) => reads.ids.filter((id) => deliveries.includes(id)).length;

describe('webhook deliveries parked while their account holds its places', () => {
  it("when one account's 50 deliveries wait for its 2 places, then each is taken once, another account's goes through meanwhile, and each ending attempt wakes the next", async () => {
    const endpoints = await Promise.all(Array.from({ length: ENDPOINTS }, (_, i) => createEndpoint(attacker, `${holder.url}/hold-${i}`)));
    const theirs = await createEndpoint(other, receiver.url('/other'));
    const deliveries: string[] = [];
    const reads = recordReads();
    // In turn across the endpoints, so it is the account's places that refuse them (never an endpoint's two).
    for (let i = 0; i < PINGS_EACH; i += 1) for (const endpoint of endpoints) deliveries.push(await ping(attacker, endpoint));

    // The account's two places are held, and every one of its entries has been taken (and refused) once.
    await until('the attacker holds its places', () => holder.inFlight === PER_ACCOUNT_DEFAULT, 10_000);
    await until('every attacker entry taken', async () => (await takes(deliveries)).every((n) => n >= 1), 20_000);
    // Refused by their account's gate before anything of them was read: only the two granted were read from
    // PostgreSQL (before, each of the 50 was read, then refused).
    expect(readsOf(reads, deliveries)).toBe(PER_ACCOUNT_DEFAULT);

    const sent = await ping(other, theirs);
    await receiver.waitFor(1, (r) => r.path === '/other', 10_000);
    // Refused deliveries wait outside the queue: two seconds on, none has been taken again (before, each went back
    // after 0.5 s, 1 s, 2 s…: the other account's delivery queued behind hundreds of such takes).
    await new Promise((r) => setTimeout(r, 2_000));
    expect(sum(await takes(deliveries))).toBe(deliveries.length);
    expect((await takes([sent]))[0]).toBe(1);
    expect(holder.inFlight).toBe(PER_ACCOUNT_DEFAULT);
    const parked = await Promise.all(deliveries.map(async (id) => (await producer.queue().getJob(id))?.getState()));
    expect(parked.filter((state) => state === 'delayed')).toHaveLength(deliveries.length - PER_ACCOUNT_DEFAULT);

    // Answered, each attempt that ends wakes a parked one: all 50 arrive long before the parked entries' backstop
    // (48–72 s), two at a time: each taken once more.
    holder.release();
    await until('every attacker delivery sent', () => holder.requests >= deliveries.length, 20_000);
    expect(holder.requests).toBe(deliveries.length);
    expect(sum(await takes(deliveries))).toBe(2 * deliveries.length - PER_ACCOUNT_DEFAULT);
    // Each read once, for its one attempt.
    reads.stop();
    expect(readsOf(reads, deliveries)).toBe(deliveries.length);
  }, 90_000);
});
