import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startWorld, type TestWorld } from '../harness';
import { buildAccount, type TestAccount } from '../factories';
import { startWebhookReceiver, type WebhookReceiver } from '../webhook-receiver';

// An endpoint that never answers (a tarpit) holds at most WEBHOOK_CONCURRENCY_PER_ENDPOINT of the
// fleet's WEBHOOK_CONCURRENCY slots, and its attempts get a shorter time limit once two timed out in a
// row, so another account's ping goes out at once; a ping is one attempt, never retried. An account
// with many tarpits holds at most WEBHOOK_CONCURRENCY_PER_ACCOUNT across them (by default half of
// WEBHOOK_CONCURRENCY: 2 of the 4 slots here).
const TIMEOUT_MS = 3_000;
const PER_ENDPOINT = 2;
const SLOTS = 4;
const PER_ACCOUNT_DEFAULT = 2;

interface Tarpit {
  url: string;
  requests: number;
  maxInFlight: number;
  close(): Promise<void>;
}

async function startTarpit(): Promise<Tarpit> {
  // One server for every path: the tarpit's in-flight count is the attacker's across all its endpoints.
  let inFlight = 0;
  const tarpit = { requests: 0, maxInFlight: 0 };
  const server: Server = createServer((req) => {
    tarpit.requests += 1;
    inFlight += 1;
    tarpit.maxInFlight = Math.max(tarpit.maxInFlight, inFlight);
    req.socket.on('close', () => (inFlight -= 1));
    // Never answers.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(tarpit, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  }) as Tarpit;
}

let world: TestWorld;
let tarpit: Tarpit;
let receiver: WebhookReceiver;
let attacker: TestAccount;
let victim: TestAccount;

beforeAll(async () => {
  world = await startWorld({
    env: {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOK_CONCURRENCY: String(SLOTS),
      WEBHOOK_CONCURRENCY_PER_ENDPOINT: String(PER_ENDPOINT),
      WEBHOOK_RETRY_SCHEDULE: '200ms,300ms,400ms',
    },
  });
  tarpit = await startTarpit();
  receiver = await startWebhookReceiver();
  attacker = await buildAccount(world.db, { credits: 0 });
  victim = await buildAccount(world.db, { credits: 0 });
});
afterAll(async () => {
  await world?.close();
  await tarpit?.close();
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

type Delivery = { id: string; status: string; attempts: Array<{ latencyMs: number; error: string | null }> };
const deliveriesOf = async (who: TestAccount, endpoint: string): Promise<Delivery[]> =>
  (await world.http.get(`/api/v1/webhooks/${endpoint}/deliveries`).set(who.auth)).body.items as Delivery[];

describe('webhook fairness between endpoints', () => {
  it('when one account pings a tarpit over and over, then the tarpit holds at most its own places and another account’s ping goes out at once', async () => {
    const slow = await createEndpoint(attacker, tarpit.url);
    const fast = await createEndpoint(victim, receiver.url('/victim'));
    // The tarpit's 5 pings (its per-minute allowance) on 4 fleet slots: without the per-endpoint cap they took all 4.
    for (let i = 0; i < 5; i += 1) expect((await world.http.post(`/api/v1/webhooks/${slow}/test`).set(attacker.auth)).status).toBe(202);
    await new Promise((r) => setTimeout(r, 300));
    const sent = Date.now();
    expect((await world.http.post(`/api/v1/webhooks/${fast}/test`).set(victim.auth)).status).toBe(202);
    const [arrived] = await receiver.waitFor(1, (r) => r.path === '/victim', 10_000);
    expect(arrived!.at - sent).toBeLessThan(1_500);
    expect(tarpit.maxInFlight).toBeLessThanOrEqual(PER_ENDPOINT);

    // Every tarpit ping ends after two attempts (a ping is retried once); after two timeouts in a row,
    // the next attempts wait a fifth of the limit (1 s at least) instead of all of it.
    const until = Date.now() + 20_000;
    let pings = await deliveriesOf(attacker, slow);
    while (pings.some((d) => d.status === 'pending') && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
      pings = await deliveriesOf(attacker, slow);
    }
    expect(pings.map((d) => [d.status, d.attempts.length])).toEqual(Array(5).fill(['failed', 2]));
    const latencies = pings.flatMap((d) => d.attempts.map((a) => a.latencyMs));
    // The first places' attempts take the whole limit; one that entered while the streak was still 1
    // (its sibling not yet back) may too. Every other attempt is short.
    const full = latencies.filter((ms) => ms >= TIMEOUT_MS - 100).length;
    expect(full).toBeGreaterThanOrEqual(PER_ENDPOINT);
    expect(full).toBeLessThanOrEqual(2 * PER_ENDPOINT - 1);
    expect(latencies.filter((ms) => ms < TIMEOUT_MS / 2)).toHaveLength(10 - full);
    expect(tarpit.requests).toBe(10);
    expect(tarpit.maxInFlight).toBeLessThanOrEqual(PER_ENDPOINT);
  }, 60_000);
});

describe('webhook fairness between accounts', () => {
  it('when one account pings many tarpit endpoints at once, then it holds at most its share of the slots and another account’s ping goes out at once', async () => {
    // 5 endpoints × 2 places each = 10 places wanted on 4 slots: without the account's cap the
    // attacker held all 4 for a whole timeout and the other account's ping waited for one to end.
    const many = await startTarpit();
    const attacker2 = await buildAccount(world.db, { credits: 0 });
    const victim2 = await buildAccount(world.db, { credits: 0 });
    try {
      const slow = await Promise.all(
        Array.from({ length: 5 }, (_, i) => createEndpoint(attacker2, many.url.replace('/hook', `/tarpit-${i}`))),
      );
      const fast = await createEndpoint(victim2, receiver.url('/victim2'));
      await Promise.all(
        slow.flatMap((id) =>
          Array.from({ length: 5 }, async () => {
            expect((await world.http.post(`/api/v1/webhooks/${id}/test`).set(attacker2.auth)).status).toBe(202);
          }),
        ),
      );
      // The attack is under way: the attacker's places are taken before the other account pings.
      const attackUntil = Date.now() + 5_000;
      while (many.maxInFlight < PER_ACCOUNT_DEFAULT && Date.now() < attackUntil) await new Promise((r) => setTimeout(r, 50));
      expect(many.maxInFlight).toBe(PER_ACCOUNT_DEFAULT);
      const sent = Date.now();
      expect((await world.http.post(`/api/v1/webhooks/${fast}/test`).set(victim2.auth)).status).toBe(202);
      const [arrived] = await receiver.waitFor(1, (r) => r.path === '/victim2', 10_000);
      expect(arrived!.at - sent).toBeLessThan(1_500);
      // Through the first timeouts and the next places taken: never more than the account's share.
      await new Promise((r) => setTimeout(r, TIMEOUT_MS + 1_500));
      expect(many.requests).toBeGreaterThan(PER_ACCOUNT_DEFAULT);
      expect(many.maxInFlight).toBe(PER_ACCOUNT_DEFAULT);
    } finally {
      await many.close();
    }
  }, 60_000);
});
