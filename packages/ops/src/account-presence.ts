/**
 * Which accounts are present in this process (decision 050): an account is present while it has work here (a request
 * at work or waiting in the API, a job running or waiting for a turn in a worker) and for `recentMs` after its last
 * piece of work ended, so a limit that holds "while another account is here" does not drop between one account's
 * back-to-back calls. The API's in-flight limit and the worker's account turns are work-conserving through this one
 * rule: an account alone is never held back.
 *
 * O(1) a question: the accounts at work are counted in one map, the ones that left in another in the order they left
 * (each is put last again when it leaves), so the stale ones are at the front and pruned there.
 */
export interface AccountPresence {
  /** one more piece of the account's work is here */
  arrive(accountId: string): void;
  /** one piece ended; with none left the account stays present for `recentMs` */
  leave(accountId: string): void;
  /** another account than this one is present */
  othersPresent(accountId: string): boolean;
  /** the account's pieces of work here now */
  count(accountId: string): number;
}

export function accountPresence(options: { recentMs?: number; now?: () => number } = {}): AccountPresence {
  const recentMs = options.recentMs ?? 1_000;
  const now = options.now ?? Date.now;
  const atWork = new Map<string, number>();
  const left = new Map<string, number>();
  return {
    arrive(id) {
      atWork.set(id, (atWork.get(id) ?? 0) + 1);
      left.delete(id);
    },
    leave(id) {
      const n = (atWork.get(id) ?? 0) - 1;
      if (n > 0) {
        atWork.set(id, n);
        return;
      }
      atWork.delete(id);
      left.delete(id); // last in the leaving order again
      left.set(id, now());
    },
    othersPresent(id) {
      if (atWork.size > (atWork.has(id) ? 1 : 0)) return true;
      const at = now();
      for (const [other, since] of left) {
        if (at - since < recentMs) break;
        left.delete(other);
      }
      return left.size > (left.has(id) ? 1 : 0);
    },
    count: (id) => atWork.get(id) ?? 0,
  };
}
