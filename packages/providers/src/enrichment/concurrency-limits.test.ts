import { abortableLimit, KeyedLimiter } from './concurrency-limits';

const never = new AbortController().signal;
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('abortableLimit (p-limit)', () => {
  it('when the limit is reached, then the next task waits for a slot and tasks start in order', async () => {
    const limit = abortableLimit(1);
    const order: string[] = [];
    let finishFirst: () => void = () => undefined;
    const first = limit(never, () => new Promise<void>((resolve) => (finishFirst = resolve)));
    const second = limit(never, async () => void order.push('second'));
    const third = limit(never, async () => void order.push('third'));
    await tick();
    expect(order).toEqual([]);
    finishFirst();
    await Promise.all([first, second, third]);
    expect(order).toEqual(['second', 'third']);
    await tick();
    expect(limit.idle).toBe(true);
  });

  it('when the signal aborts while waiting, then the task rejects with its reason and never runs', async () => {
    const limit = abortableLimit(1);
    let finishFirst: () => void = () => undefined;
    const first = limit(never, () => new Promise<void>((resolve) => (finishFirst = resolve)));
    const controller = new AbortController();
    let ran = false;
    const waiting = limit(controller.signal, async () => void (ran = true));
    const reason = new Error('cancelled');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    finishFirst();
    await first;
    await tick();
    expect(ran).toBe(false);
    expect(limit.idle).toBe(true);
  });
});

describe('KeyedLimiter', () => {
  it('when tasks share a key, then they run one at a time, different keys run together, and idle keys are dropped', async () => {
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
    await tick();
    expect(running).toBe(2);
    unblock();
    await Promise.all([...same, other]);
    expect(most).toBe(2);
    await tick();
    expect(limiter.size).toBe(0);
  });
});
