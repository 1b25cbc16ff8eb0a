import { SOURCES, type Source } from '@leadgen/domain';
import { closeRedis, redisKeys, subscriberConnection, type RedisClient, type RedisSettings } from './redis-connections';
import type { RedisKeys } from './redis-keys';
import { channels } from './queue-names';

export type JobEventHandler = (jobId: string) => void;

export interface JobEventPublisher {
  publishTerminal(jobId: string): Promise<void>;
  publishCancel(jobId: string): Promise<void>;
  publishLeadsErased(jobId: string): Promise<void>;
  /** a job of the source was created held: a worker with idle slots beyond its reserve borrows it now (decision 020) */
  publishHeld(source: Source): Promise<void>;
}

/**
 * Held-job nudges are coalesced per source and process: one PUBLISH at once, then at most one more per
 * HELD_NUDGE_MS, sent at the window's end for every nudge asked for within it. A nudge only says "look now" (the filler
 * borrows what PostgreSQL holds, whatever the count of nudges), and every nudge asked for is followed by a PUBLISH
 * sent no earlier, so none is lost; a burst of one account's held creations (each was a PUBLISH of its own, most of a
 * sync job's API-side Redis commands at c=50: issue 32) costs one per window.
 */
export const HELD_NUDGE_MS = 50;

export function jobEventPublisher(connection: RedisClient, keys: RedisKeys): JobEventPublisher {
  const names = channels(keys);
  const nudges = new Map<Source, { last: number; trailing: Promise<void> | null }>();
  const publishHeld = (source: Source): Promise<void> => {
    const now = Date.now();
    const state = nudges.get(source) ?? { last: -Infinity, trailing: null };
    nudges.set(source, state);
    if (state.trailing) return state.trailing;
    if (now - state.last >= HELD_NUDGE_MS) {
      state.last = now;
      return connection.publish(names.jobHeld, source).then(() => undefined);
    }
    state.trailing = new Promise<void>((resolve, reject) => {
      // A timer runs on the loop's clock (monotonic, read as a turn of the loop begins), the window on Date.now():
      // the two may disagree by a millisecond or two (CI saw a window of 48 ms), so a timer that fires before the
      // window is over by Date.now() is armed again for what is left of it.
      const fire = () => {
        const left = state.last + HELD_NUDGE_MS - Date.now();
        if (left > 0) {
          setTimeout(fire, left).unref?.();
          return;
        }
        state.trailing = null;
        state.last = Date.now();
        connection.publish(names.jobHeld, source).then(() => resolve(), reject);
      };
      setTimeout(fire, state.last + HELD_NUDGE_MS - now).unref?.();
    });
    return state.trailing;
  };
  return {
    publishTerminal: async (jobId) => void (await connection.publish(names.jobTerminal, jobId)),
    publishCancel: async (jobId) => void (await connection.publish(names.jobCancel, jobId)),
    publishLeadsErased: async (jobId) => void (await connection.publish(names.jobLeadsErased, jobId)),
    publishHeld,
  };
}

export interface JobEventSubscription {
  close(): Promise<void>;
}

/**
 * One subscriber connection per process for the fleet's job events. Handlers are per process,
 * not per request: the API fans terminal events out to its waiting requests itself. On a cluster a
 * PUBLISH reaches every node, so the subscriber may listen on any of them.
 */
export function subscribeJobEvents(
  settings: RedisSettings,
  handlers: {
    onTerminal?: JobEventHandler;
    onCancel?: JobEventHandler;
    onLeadsErased?: JobEventHandler;
    onHeld?: (source: Source) => void;
  },
): JobEventSubscription {
  const names = channels(redisKeys(settings));
  const connection = subscriberConnection(settings, 'job-events');
  const wanted = [
    handlers.onTerminal ? names.jobTerminal : null,
    handlers.onCancel ? names.jobCancel : null,
    handlers.onLeadsErased ? names.jobLeadsErased : null,
    handlers.onHeld ? names.jobHeld : null,
  ].filter((c): c is string => c !== null);
  connection.on('message', (channel: string, message: string) => {
    if (channel === names.jobTerminal) handlers.onTerminal?.(message);
    else if (channel === names.jobCancel) handlers.onCancel?.(message);
    else if (channel === names.jobLeadsErased) handlers.onLeadsErased?.(message);
    else if (channel === names.jobHeld && (SOURCES as readonly string[]).includes(message)) handlers.onHeld?.(message as Source);
  });
  // Not awaited: with Redis down the subscription waits for it (ioredis queues the command and
  // re-subscribes after every reconnect) while the process starts and serves what it can.
  if (wanted.length > 0) void connection.subscribe(...wanted).catch(() => undefined);
  return {
    async close() {
      await closeRedis(connection);
    },
  };
}
