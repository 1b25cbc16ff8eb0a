import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { FleetRateLimiter } from '../src/upstream';
import { ProviderError } from '../src/lead-provider';

const prefix = `leadgen-test-${randomUUID()}`;
let redis: Redis;
let other: Redis;
let n = 0;
const key = () => `${prefix}:ratelimit:test-${++n}`;
const never = () => new AbortController().signal;

beforeAll(() => {
  redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
  other = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await Promise.all([redis.quit(), other.quit()]);
});

describe('fleet-wide rate limiter', () => {
  it('when two limiters (two workers) use the same key, then they share one budget', async () => {
    const shared = key();
    // 10 a second with a burst of 2: six calls need at least 400 ms in all, wherever they come from.
    const a = new FleetRateLimiter({ redis, key: shared, ratePerMin: 600, capacity: 2 });
    const b = new FleetRateLimiter({ redis: other, key: shared, ratePerMin: 600, capacity: 2 });
    const started = Date.now();
    const deadline = started + 10_000;
    await Promise.all([a, b, a, b, a, b].map((limiter) => limiter.acquire(never(), deadline)));
    expect(Date.now() - started).toBeGreaterThanOrEqual(330);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('when limiters use different keys, then one upstream does not spend another one budget', async () => {
    const a = new FleetRateLimiter({ redis, key: key(), ratePerMin: 6, capacity: 2 });
    const b = new FleetRateLimiter({ redis: other, key: key(), ratePerMin: 6, capacity: 2 });
    const deadline = Date.now() + 1_000;
    // Both limiters' bursts are whole: four immediate grants (a shared key would refuse two of them).
    await Promise.all([a, a, b, b].map((limiter) => limiter.acquire(never(), deadline)));
  });

  it('when the next slot comes after the deadline, then acquire fails at once and reserves nothing', async () => {
    const name = key();
    const limiter = new FleetRateLimiter({ redis, key: name, ratePerMin: 60, capacity: 1 });
    await limiter.acquire(never(), Date.now() + 5_000);
    const started = Date.now();
    await expect(limiter.acquire(never(), Date.now() + 300)).rejects.toBeInstanceOf(ProviderError);
    expect(Date.now() - started).toBeLessThan(250);
    // Nothing was reserved by the refused call: the next slot is still about a second after the first.
    await limiter.acquire(never(), Date.now() + 5_000);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('when the job aborts while waiting for a slot, then acquire rejects at once with the reason', async () => {
    const limiter = new FleetRateLimiter({ redis, key: key(), ratePerMin: 6, capacity: 1 });
    await limiter.acquire(never(), Date.now() + 20_000);
    const controller = new AbortController();
    const reason = new Error('cancelled');
    setTimeout(() => controller.abort(reason), 100);
    const started = Date.now();
    await expect(limiter.acquire(controller.signal, Date.now() + 20_000)).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('when an upstream asked to hold off, then no worker gets a slot until the pause is over', async () => {
    const shared = key();
    const a = new FleetRateLimiter({ redis, key: shared, ratePerMin: 6_000, capacity: 10 });
    const b = new FleetRateLimiter({ redis: other, key: shared, ratePerMin: 6_000, capacity: 10 });
    await a.pause(500);
    const started = Date.now();
    await b.acquire(never(), Date.now() + 5_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('when Redis cannot be reached, then calls go through rather than fail every job', async () => {
    const offline = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    offline.on('error', () => undefined);
    const limiter = new FleetRateLimiter({ redis: offline, key: key(), ratePerMin: 1 });
    await expect(limiter.acquire(never(), Date.now() + 1_000)).resolves.toBeUndefined();
    offline.disconnect();
  });
});
