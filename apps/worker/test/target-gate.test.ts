import { closeRedis, producerConnection, redisKeys, waitUntilConnected } from '@leadgen/queue';
import { testConfig } from '../../../test/harness';
import { SHORT_TIMEOUT_SHARE, TIMEOUT_STREAK, targetGate, webhookTargetOf, type TargetPass } from '../src/webhooks/target-gate';

// The webhook gate's places in real Redis: a target's (WEBHOOK_CONCURRENCY_PER_ENDPOINT) and an account's
// across all its targets (WEBHOOK_CONCURRENCY_PER_ACCOUNT), each in one slot of its own (decision 023).
const config = testConfig();
const keys = redisKeys(config.redis);
const redis = producerConnection(config.redis);
beforeAll(() => waitUntilConnected(redis, 5_000));
afterAll(() => closeRedis(redis));

const granted = (pass: TargetPass) => {
  if (!pass.granted) throw new Error(`not granted: ${pass.busy} busy`);
  return pass;
};
const answered = { timedOut: false, answered: true };

describe('targetGate', () => {
  it("when an account holds its share, then its next target is refused as the account's and that target's place is given back", async () => {
    const gate = targetGate(redis, keys, { perTarget: 2, perAccount: 3, timeoutMs: 5_000 });
    const held = await Promise.all(['t1', 't2', 't3'].map(async (target) => granted(await gate.enter(`a1-${target}`, 'acct_1'))));
    expect(await gate.enter('a1-t4', 'acct_1')).toEqual({ granted: false, busy: 'account', woken: [] });
    expect(await redis.zcard(keys.webhookTarget('a1-t4').inFlight)).toBe(0);
    expect(await redis.zcard(keys.account('acct_1').webhookInFlight)).toBe(3);
    // Another account is not counted with it; the first one's place comes back when an attempt ends.
    granted(await gate.enter('a2-t1', 'acct_2'));
    await held[0]!.leave(answered);
    await held[1]!.leave({ timedOut: false, answered: false });
    expect(await redis.zcard(keys.account('acct_1').webhookInFlight)).toBe(1);
    granted(await gate.enter('a1-t4', 'acct_1'));
  });

  it("when a target is full, then it is refused as the target's and the account's places are untouched", async () => {
    const gate = targetGate(redis, keys, { perTarget: 1, perAccount: 5, timeoutMs: 5_000 });
    granted(await gate.enter('b-t1', 'acct_b'));
    expect(await gate.enter('b-t1', 'acct_b')).toEqual({ granted: false, busy: 'target', woken: [] });
    expect(await redis.zcard(keys.account('acct_b').webhookInFlight)).toBe(1);
  });

  it('when many attempts of one account race for its places, then exactly its share is granted', async () => {
    const gate = targetGate(redis, keys, { perTarget: 2, perAccount: 4, timeoutMs: 5_000 });
    const passes = await Promise.all(Array.from({ length: 40 }, (_, i) => gate.enter(`c-t${i % 10}`, 'acct_c')));
    expect(passes.filter((p) => p.granted)).toHaveLength(4);
    expect(await redis.zcard(keys.account('acct_c').webhookInFlight)).toBe(4);
  });

  it('when the account cap is 0, then only the targets are counted', async () => {
    const gate = targetGate(redis, keys, { perTarget: 2, perAccount: 0, timeoutMs: 5_000 });
    const passes = await Promise.all(Array.from({ length: 10 }, (_, i) => gate.enter(`d-t${i}`, 'acct_d')));
    expect(passes.every((p) => p.granted)).toBe(true);
    expect(await redis.exists(keys.account('acct_d').webhookInFlight)).toBe(0);
  });

  it("when a place is taken, then the account's lease set lives as long as the lease (a dead worker's place lapses)", async () => {
    // timeoutMs 100: leases of 5.1 s; a shorter lease cannot be asked for, so the set's expiry is checked.
    const gate = targetGate(redis, keys, { perTarget: 1, perAccount: 1, timeoutMs: 100 });
    granted(await gate.enter('e-t1', 'acct_e'));
    expect(await gate.enter('e-t2', 'acct_e')).toEqual({ granted: false, busy: 'account', woken: [] });
    const ttl = await redis.pttl(keys.account('acct_e').webhookInFlight);
    expect(ttl).toBeGreaterThan(4_000);
    expect(ttl).toBeLessThanOrEqual(5_100);
  });

  it("when one account's webhookUrl host is a tarpit, then another account sending to that host keeps its places and its full time limit", async () => {
    const gate = targetGate(redis, keys, { perTarget: 2, perAccount: 10, timeoutMs: 5_000 });
    const url = `https://tarpit-${Date.now()}.example/hook`;
    const tarpit = (accountId: string) => webhookTargetOf({ endpointId: null, url: `${url}?n=${accountId}`, accountId });
    // The tarpitting account's attempts time out, enough in a row to shorten its limit there...
    for (let i = 0; i < TIMEOUT_STREAK; i += 1)
      await granted(await gate.enter(tarpit('acct_tarpit'), 'acct_tarpit')).leave({ timedOut: true, answered: false });
    const held = [
      granted(await gate.enter(tarpit('acct_tarpit'), 'acct_tarpit')),
      granted(await gate.enter(tarpit('acct_tarpit'), 'acct_tarpit')),
    ];
    expect(held[0]!.timeoutMs).toBe(Math.max(1_000, 5_000 * SHORT_TIMEOUT_SHARE));
    expect(await gate.enter(tarpit('acct_tarpit'), 'acct_tarpit')).toEqual({ granted: false, busy: 'target', woken: [] });
    // ...and it costs the host's other senders nothing: their places and their whole time limit.
    const other = granted(await gate.enter(tarpit('acct_neighbour'), 'acct_neighbour'));
    expect(other.timeoutMs).toBe(5_000);
    granted(await gate.enter(tarpit('acct_neighbour'), 'acct_neighbour'));
  });

  it('when an account holds its share, then its refused deliveries are parked and each attempt that ends wakes the one parked longest', async () => {
    const gate = targetGate(redis, keys, { perTarget: 5, perAccount: 2, timeoutMs: 5_000 });
    const held = [granted(await gate.enter('f-t1', 'acct_f', 'dlv_1')), granted(await gate.enter('f-t2', 'acct_f', 'dlv_2'))];
    for (const id of ['dlv_3', 'dlv_4', 'dlv_5']) {
      expect(await gate.enter('f-t1', 'acct_f', id)).toEqual({ granted: false, busy: 'account', woken: [] });
      expect(await gate.park({ busy: 'account', target: 'f-t1', accountId: 'acct_f' }, id)).toBe(true);
    }
    // Parked again (its backstop came first), it keeps its place in line.
    expect(await gate.park({ busy: 'account', target: 'f-t1', accountId: 'acct_f' }, 'dlv_3')).toBe(true);
    expect(await redis.zrange(keys.account('acct_f').webhookParked, 0, -1)).toEqual(['dlv_3', 'dlv_4', 'dlv_5']);
    expect(await held[0]!.leave(answered)).toEqual(['dlv_3']);
    // The woken delivery, granted, is no longer parked; the next attempt to end wakes the next one.
    const third = granted(await gate.enter('f-t1', 'acct_f', 'dlv_3'));
    expect(await held[1]!.leave({ timedOut: true, answered: false })).toEqual(['dlv_4']);
    expect(await third.leave(answered)).toEqual(['dlv_5']);
    expect(await redis.zcard(keys.account('acct_f').webhookParked)).toBe(0);
  });

  it('when a place frees between the refusal and the parking, then the delivery is not parked (it goes again at once)', async () => {
    const gate = targetGate(redis, keys, { perTarget: 1, perAccount: 5, timeoutMs: 5_000 });
    const held = granted(await gate.enter('g-t1', 'acct_g', 'dlv_g1'));
    expect(await gate.enter('g-t1', 'acct_g', 'dlv_g2')).toEqual({ granted: false, busy: 'target', woken: [] });
    expect(await held.leave(answered)).toEqual([]);
    expect(await gate.park({ busy: 'target', target: 'g-t1', accountId: 'acct_g' }, 'dlv_g2')).toBe(false);
    expect(await redis.exists(keys.webhookTarget('g-t1').parked)).toBe(0);
  });

  it("when the account's place is taken before the delivery is read, then it is refused while the account is full, handed to the attempt when granted, and given back when the target refuses", async () => {
    const gate = targetGate(redis, keys, { perTarget: 1, perAccount: 2, timeoutMs: 5_000 });
    const first = await gate.enterAccount('acct_h', 'dlv_h1');
    if (!first?.granted) throw new Error('the first place was refused');
    const attempt = granted(await gate.enter('h-t1', 'acct_h', 'dlv_h1', first));
    // One lease per attempt at the account, not two: the pass is the attempt's.
    expect(await redis.zcard(keys.account('acct_h').webhookInFlight)).toBe(1);
    const second = await gate.enterAccount('acct_h', 'dlv_h2');
    if (!second?.granted) throw new Error('the second place was refused');
    expect(await gate.enterAccount('acct_h', 'dlv_h3')).toEqual({ granted: false });
    // The target is full (1): the second's account place goes back with the refusal.
    expect(await gate.enter('h-t1', 'acct_h', 'dlv_h2', second)).toEqual({ granted: false, busy: 'target', woken: [] });
    expect(await redis.zcard(keys.account('acct_h').webhookInFlight)).toBe(1);
    await attempt.leave(answered);
    expect(await redis.zcard(keys.account('acct_h').webhookInFlight)).toBe(0);
    // Accounts not capped: nothing to take early.
    expect(await targetGate(redis, keys, { perTarget: 1, perAccount: 0, timeoutMs: 5_000 }).enterAccount('acct_h', 'dlv_h4')).toBeNull();
  });

  it('when a place is given back unused, then the delivery parked longest for it is answered to be woken, at the account and at the target', async () => {
    const gate = targetGate(redis, keys, { perTarget: 1, perAccount: 1, timeoutMs: 5_000 });
    // The account's one place taken early; a second delivery is refused and parked at the account meanwhile.
    const early = await gate.enterAccount('acct_i', 'dlv_i1');
    if (!early?.granted) throw new Error('the first place was refused');
    expect(await gate.enterAccount('acct_i', 'dlv_i2')).toEqual({ granted: false });
    expect(await gate.park({ busy: 'account', target: '', accountId: 'acct_i' }, 'dlv_i2')).toBe(true);
    // Its delivery was not pending after all: the place goes back and the parked one is answered (it waited 60 s before).
    expect(await early.giveBack()).toEqual(['dlv_i2']);
    expect(await redis.zcard(keys.account('acct_i').webhookInFlight)).toBe(0);
    expect(await redis.zcard(keys.account('acct_i').webhookParked)).toBe(0);

    // At the target: two deliveries parked while it was full, the first woken as its attempt ends; then an attempt
    // of an account that is full elsewhere is granted the target's place and refused by its account: the target's
    // place goes back and answers the second parked one, which would wait for its backstop otherwise.
    const gate2 = targetGate(redis, keys, { perTarget: 1, perAccount: 1, timeoutMs: 5_000 });
    const held = granted(await gate2.enter('j-t2', 'acct_j', 'dlv_j1'));
    const other = granted(await gate2.enter('j-t1', 'acct_x', 'dlv_x1'));
    for (const id of ['dlv_y1', 'dlv_y2']) {
      expect(await gate2.enter('j-t1', 'acct_y', id)).toEqual({ granted: false, busy: 'target', woken: [] });
      expect(await gate2.park({ busy: 'target', target: 'j-t1', accountId: 'acct_y' }, id)).toBe(true);
    }
    expect(await other.leave(answered)).toEqual(['dlv_y1']);
    expect(await gate2.enter('j-t1', 'acct_j', 'dlv_j2')).toEqual({ granted: false, busy: 'account', woken: ['dlv_y2'] });
    expect(await redis.zcard(keys.webhookTarget('j-t1').inFlight)).toBe(0);
    await held.leave(answered);
  });
});
