import { logger } from '@leadgen/logger';

/** At most one "still failing" line per connection this often, with the count of errors since the last. */
export const CONNECTION_LOG_INTERVAL_MS = 30_000;

export interface ConnectionLog {
  /** an `error` event of the connection */
  failed(error: Error): void;
  /** the connection is (again) ready */
  recovered(): void;
}

/**
 * A Redis that is away makes a connection emit an error at every reconnect attempt (and a BullMQ
 * worker re-emits them): logged as they come, that was thousands of lines a second. Here a change of
 * state is logged at once (the first failure, the recovery), and the failures in between at most once
 * per interval, with how many there were.
 */
export function connectionLog(connection: string, intervalMs = CONNECTION_LOG_INTERVAL_MS): ConnectionLog {
  // One state per name: a BullMQ Worker re-emits its connection's errors under the same name, and its
  // recovery is seen on the connection itself.
  let log = byName.get(connection);
  if (!log) byName.set(connection, (log = newConnectionLog(connection, intervalMs)));
  return log;
}

const byName = new Map<string, ConnectionLog>();

function newConnectionLog(connection: string, intervalMs: number): ConnectionLog {
  let failingSince: number | null = null;
  let lastLine = 0;
  let unlogged = 0;
  let total = 0;
  return {
    failed(error) {
      const now = Date.now();
      total += 1;
      if (failingSince === null) {
        failingSince = lastLine = now;
        unlogged = 0;
        logger.warn('redis connection failing', { connection, error: error.message });
        return;
      }
      unlogged += 1;
      if (now - lastLine >= intervalMs) {
        logger.warn('redis connection still failing', {
          connection,
          error: error.message,
          errors: unlogged,
          failingForMs: now - failingSince,
        });
        lastLine = now;
        unlogged = 0;
      }
    },
    recovered() {
      if (failingSince === null) return;
      logger.info('redis connection recovered', { connection, errors: total, failedForMs: Date.now() - failingSince });
      failingSince = null;
      total = 0;
    },
  };
}
