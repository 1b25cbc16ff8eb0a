import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { hitFixedWindow, pauseBucket, reserveToken, type TokenBucket } from '../src/rate-limit-scripts';

const prefix = `leadgen-test-${randomUUID()}`;
let redis: Redis;
let n = 0;
const key = () => `${prefix}:ratelimit:test-${++n}`;

beforeAll(() => {
  redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

/** The commands `fn` sends on the connection, by name as they went on the wire. */
async function commandsSentBy(fn: () => Promise<unknown>): Promise<string[]> {
  const sent: Array<{ name: string }> = [];
  const original = redis.sendCommand.bind(redis);
  const spy = jest.spyOn(redis, 'sendCommand').mockImplementation((command, ...rest) => {
    sent.push(command as { name: string });
    return original(command, ...rest);
  });
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return sent.map((command) => command.name);
}

describe('fixed window (the API per-account limit)', () => {
  it('when a window is hit three times, then the count rises from 1 and the key expires within the window', async () => {
    const window = key();
    expect((await hitFixedWindow(redis, window, 61)).count).toBe(1);
    expect((await hitFixedWindow(redis, window, 61)).count).toBe(2);
    const third = await hitFixedWindow(redis, window, 61);
    expect(third.count).toBe(3);
    expect(third.ttlSeconds).toBeGreaterThan(55);
    expect(third.ttlSeconds).toBeLessThanOrEqual(61);
  });

  it('when the script is known to the connection, then a hit is one EVALSHA (the hot path budget)', async () => {
    await hitFixedWindow(redis, key(), 61);
    expect(await commandsSentBy(() => hitFixedWindow(redis, key(), 61))).toEqual(['evalsha']);
  });
});

describe('token bucket (an upstream quota shared by the workers)', () => {
  const bucket = (capacity: number): TokenBucket => ({ key: key(), tokensPerMs: 10 / 1000, capacity });

  it('when the burst is spent, then the next caller reserves a token and is told to wait, and one that cannot wait that long reserves nothing', async () => {
    const b = bucket(1);
    expect(await reserveToken(redis, b, 5_000)).toEqual({ granted: true, waitMs: 0 });
    const refused = await reserveToken(redis, b, 10);
    expect(refused.granted).toBe(false);
    expect(refused.waitMs).toBeGreaterThan(10);
    // the refused call reserved nothing: the next token is still about 100 ms away, not 200
    const next = await reserveToken(redis, b, 5_000);
    expect(next.granted).toBe(true);
    expect(next.waitMs).toBeGreaterThan(0);
    expect(next.waitMs).toBeLessThanOrEqual(100);
  });

  it('when the bucket is paused, then the next token comes after the pause', async () => {
    const b = bucket(10);
    await pauseBucket(redis, b, 1_000);
    const after = await reserveToken(redis, b, 5_000);
    expect(after.granted).toBe(true);
    expect(after.waitMs).toBeGreaterThan(900);
    expect(after.waitMs).toBeLessThanOrEqual(1_000);
  });

  it('when the script is known to the connection, then a reservation is one EVALSHA', async () => {
    const b = bucket(5);
    await reserveToken(redis, b, 1_000);
    expect(await commandsSentBy(() => reserveToken(redis, b, 1_000))).toEqual(['evalsha']);
  });
});
