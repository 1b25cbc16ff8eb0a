import { KeyedLimiter, Semaphore } from './limits';

const never = new AbortController().signal;

describe('Semaphore', () => {
  it('when the limit is reached, then the next acquire waits for a release and slots pass on in order', async () => {
    const semaphore = new Semaphore(1);
    const order: string[] = [];
    const releaseFirst = await semaphore.acquire(never);
    const second = semaphore.acquire(never).then((release) => {
      order.push('second');
      return release;
    });
    const third = semaphore.acquire(never).then((release) => {
      order.push('third');
      release();
    });
    expect(order).toEqual([]);
    releaseFirst();
    releaseFirst(); // a second call must not free a second slot
    (await second)();
    await third;
    expect(order).toEqual(['second', 'third']);
    expect(semaphore.idle).toBe(true);
  });

  it('when the signal aborts while waiting, then acquire rejects with its reason and leaves the queue', async () => {
    const semaphore = new Semaphore(1);
    const release = await semaphore.acquire(never);
    const controller = new AbortController();
    const waiting = semaphore.acquire(controller.signal);
    const reason = new Error('cancelled');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    release();
    expect(semaphore.idle).toBe(true);
  });
});

describe('KeyedLimiter', () => {
  it('when tasks share a key, then they run one at a time, and different keys run together', async () => {
    const limiter = new KeyedLimiter(1);
    let running = 0;
    let most = 0;
    let unblock: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (unblock = resolve));
    const task = async (): Promise<void> => {
      running++;
      most = Math.max(most, running);
      await gate;
      running--;
    };
    const same = [limiter.run('a', never, task), limiter.run('a', never, task)];
    const other = limiter.run('b', never, task);
    await new Promise((resolve) => setImmediate(resolve));
    expect(running).toBe(2);
    unblock();
    await Promise.all([...same, other]);
    expect(most).toBe(2);
  });
});
