import { accountPresence, loopBusy, sampled } from '@leadgen/ops';

/**
 * Fair turns for CPU-bound jobs (decision 050). BullMQ slots and the fair share (decision 020) bound how many jobs an
 * account has in a queue, not how much of a process's one event loop they take: a flood account's jobs in every slot
 * of a worker, each runnable, leave another account's job one step in fifty. So while this process's loop is busy
 * (more than `maxBusy` of the last 100 ms or more) and another account has had a job here within `recentMs`, an
 * account runs at most `perAccount` jobs here at once; its next ones wait for a turn (holding their BullMQ slot and
 * lock, not the loop), given in round robin among the accounts waiting as jobs end or the loop quietens. A lone
 * account, or jobs that mostly wait on their upstreams (a loop not busy), never wait: nothing is lost when nobody
 * else needs the process.
 */
export interface AccountTurns {
  /** waits for the account's turn (at once when it need not); the returned function ends it, once */
  enter(accountId: string, signal?: AbortSignal): Promise<() => void>;
  /** the account's jobs running (holding a turn) and waiting in this process */
  state(accountId: string): { running: number; waiting: number };
  /** jobs of every account waiting for a turn in this process */
  waiting(): number;
  stop(): void;
}

export interface AccountTurnSettings {
  /** WORKER_TURNS_PER_ACCOUNT: an account's jobs at once while the loop is busy and another account is here; 0: no turns */
  perAccount: number;
  /** WORKER_BORROW_MAX_BUSY: the loop's utilisation above which turns are kept */
  maxBusy: number;
  /** how long another account's job keeps it "here" after it ended */
  recentMs?: number;
  /** the loop's utilisation since the last call (tests); performance.eventLoopUtilization when absent */
  busy?: () => number;
  /** how often waiting jobs are looked at again while none ends (the loop may have quietened) */
  periodMs?: number;
}

const BUSY_SAMPLE_MS = 100;

interface Account {
  running: number;
  waiting: Array<() => void>;
}

export function accountTurns(settings: AccountTurnSettings): AccountTurns {
  const accounts = new Map<string, Account>();
  // Present: a job running or waiting here, or one that ended within recentMs (the rule the API's in-flight limit shares).
  const presence = accountPresence({ recentMs: settings.recentMs ?? 1_000 });
  const busy = settings.busy ?? loopBusy();
  const busyNow = sampled(busy, BUSY_SAMPLE_MS);
  const account = (id: string): Account => {
    let a = accounts.get(id);
    if (!a) accounts.set(id, (a = { running: 0, waiting: [] }));
    return a;
  };
  const mayRun = (id: string, a: Account) =>
    // maxBusy 0: kept however quiet the loop (a window of 100 ms with no work at all reads 0, which `<=` would admit).
    a.running < settings.perAccount || !presence.othersPresent(id) || (settings.maxBusy > 0 && busyNow() <= settings.maxBusy);
  // Round robin: each pass admits at most one waiting job per account, in the order the accounts first waited.
  let order: string[] = [];
  const admit = () => {
    let admitted = true;
    while (admitted) {
      admitted = false;
      for (const id of order) {
        const a = accounts.get(id);
        if (!a || a.waiting.length === 0 || !mayRun(id, a)) continue;
        a.running += 1;
        a.waiting.shift()!();
        admitted = true;
      }
      order = order.filter((id) => (accounts.get(id)?.waiting.length ?? 0) > 0);
    }
  };
  const timer = setInterval(() => {
    if (order.length > 0) admit();
  }, settings.periodMs ?? BUSY_SAMPLE_MS);
  timer.unref();

  return {
    async enter(id, signal) {
      const a = account(id);
      presence.arrive(id);
      if (settings.perAccount <= 0 || (a.waiting.length === 0 && mayRun(id, a))) a.running += 1;
      else {
        if (!order.includes(id)) order.push(id);
        await new Promise<void>((resolve) => {
          const go = () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          };
          // An aborted wait (a cancel, a shutdown) leaves the line and runs at once: its handler sees the abort.
          const onAbort = () => {
            const at = a.waiting.indexOf(go);
            if (at >= 0) a.waiting.splice(at, 1);
            a.running += 1;
            go();
          };
          a.waiting.push(go);
          if (signal?.aborted) onAbort();
          else signal?.addEventListener('abort', onAbort, { once: true });
        });
      }
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        a.running -= 1;
        presence.leave(id);
        if (a.running <= 0 && a.waiting.length === 0) accounts.delete(id);
        admit();
      };
    },
    waiting: () => {
      let n = 0;
      for (const a of accounts.values()) n += a.waiting.length;
      return n;
    },
    state: (id) => ({ running: accounts.get(id)?.running ?? 0, waiting: accounts.get(id)?.waiting.length ?? 0 }),
    stop: () => clearInterval(timer),
  };
}
