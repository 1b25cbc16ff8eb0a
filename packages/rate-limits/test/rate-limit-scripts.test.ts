import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { announceKeyEpoch, hitAccountWindow, hitFixedWindow, pauseBucket, reserveToken, type TokenBucket } from '../src/rate-limit-scripts';
import { RedisKeys } from '@leadgen/queue';

const prefix = `leadgen-test-${randomUUID()}`;
let redis: Redis;
let n = 0;
const key = () => `${prefix}:ratelimit:test-${++n}`;
const account = () => new RedisKeys(prefix, false).account(`acct_test${++n}`);

beforeAll(() => {
  redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
});
afterAll(async () => {
  const keys = [...(await redis.keys(`${prefix}:*`)), ...(await redis.keys(`{${prefix}:*`))];
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
    const keys = account();
    const window = keys.rateLimitWindow('read', 1);
    expect((await hitAccountWindow(redis, { window: window, keyEpoch: keys.keyEpoch }, 61)).count).toBe(1);
    expect((await hitAccountWindow(redis, { window: window, keyEpoch: keys.keyEpoch }, 61)).count).toBe(2);
    const third = await hitAccountWindow(redis, { window: window, keyEpoch: keys.keyEpoch }, 61);
    expect(third.count).toBe(3);
    expect(third.ttlSeconds).toBeGreaterThan(55);
    expect(third.ttlSeconds).toBeLessThanOrEqual(61);
  });

  it('when the script is known to the connection, then a hit is one EVALSHA (the hot path budget)', async () => {
    const keys = account();
    await hitAccountWindow(redis, { window: keys.rateLimitWindow('read', 1), keyEpoch: keys.keyEpoch }, 61);
    expect(
      await commandsSentBy(() => hitAccountWindow(redis, { window: keys.rateLimitWindow('read', 2), keyEpoch: keys.keyEpoch }, 61)),
    ).toEqual(['evalsha']);
  });

  it('when a key epoch is announced, then the next hit reports it, and an older announcement never lowers it', async () => {
    const keys = account();
    expect((await hitAccountWindow(redis, { window: keys.rateLimitWindow('read', 1), keyEpoch: keys.keyEpoch }, 61)).keyEpoch).toBe(0);
    expect(await announceKeyEpoch(redis, keys.keyEpoch, 3)).toBe(3);
    expect((await hitAccountWindow(redis, { window: keys.rateLimitWindow('read', 1), keyEpoch: keys.keyEpoch }, 61)).keyEpoch).toBe(3);
    expect(await announceKeyEpoch(redis, keys.keyEpoch, 2)).toBe(3);
    expect((await hitAccountWindow(redis, { window: keys.rateLimitWindow('read', 1), keyEpoch: keys.keyEpoch }, 61)).keyEpoch).toBe(3);
    expect(await redis.pttl(keys.keyEpoch)).toBeGreaterThan(3_600_000);
  });

  it("when a bare window (not an account's) is hit, then it counts without a key epoch", async () => {
    const window = key();
    expect(await hitFixedWindow(redis, window, 61)).toEqual({ count: 1, ttlSeconds: 61 });
    expect((await hitFixedWindow(redis, window, 61)).count).toBe(2);
  });

  it('when the keys of one account are named, then they share one hash tag (one cluster slot)', () => {
    const keys = new RedisKeys('leadgen', true).account('acct_1');
    const tag = (k: string) => /\{([^}]*)\}/.exec(k)?.[1];
    expect(tag(keys.keyEpoch)).toBe('leadgen:acct:acct_1');
    expect(tag(keys.rateLimitWindow('generate', 42))).toBe('leadgen:acct:acct_1');
  });
});

describe('token bucket (an upstream quota shared by the workers)', () => {
  const bucket = (capacity: number): TokenBucket => ({ key: key(), tokensPerMs: 10 / 1000, capacity });

  it('when the burst is spent, then the next caller reserves a token and is told to wait, and one that cannot wait that long reserves nothing', async () => {
    // One token a second: the next is about 1,000 ms away, so a loaded machine's pause between two calls (CI read
    // more than 90 ms once, with ten a second) cannot refill it.
    const b: TokenBucket = { key: key(), tokensPerMs: 1 / 1000, capacity: 1 };
    expect(await reserveToken(redis, b, 5_000)).toEqual({ granted: true, waitMs: 0 });
    const refused = await reserveToken(redis, b, 10);
    expect(refused.granted).toBe(false);
    expect(refused.waitMs).toBeGreaterThan(10);
    // the refused call reserved nothing: the next token is still at most 1,000 ms away, not 2,000
    const next = await reserveToken(redis, b, 5_000);
    expect(next.granted).toBe(true);
    expect(next.waitMs).toBeGreaterThan(0);
    expect(next.waitMs).toBeLessThanOrEqual(1_000);
  });

  it('when the bucket is paused, then the next token comes after the pause', async () => {
    const b = bucket(10);
    const pausedAt = Date.now();
    await pauseBucket(redis, b, 1_000);
    const after = await reserveToken(redis, b, 5_000);
    // The pause runs from Redis' clock at the first call: what is left is the pause less the time since (a loaded machine takes longer).
    const since = Date.now() - pausedAt;
    expect(after.granted).toBe(true);
    expect(after.waitMs).toBeGreaterThanOrEqual(1_000 - since - 2);
    expect(after.waitMs).toBeLessThanOrEqual(1_000);
  });

  it('when the script is known to the connection, then a reservation is one EVALSHA', async () => {
    const b = bucket(5);
    await reserveToken(redis, b, 1_000);
    expect(await commandsSentBy(() => reserveToken(redis, b, 1_000))).toEqual(['evalsha']);
  });
});
