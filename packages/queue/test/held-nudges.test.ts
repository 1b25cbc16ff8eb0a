import { HELD_NUDGE_MS, jobEventPublisher } from '../src/job-events';
import type { RedisClient } from '../src/redis-connections';
import { RedisKeys } from '../src/redis-keys';

// Held-job nudges (decision 020's borrowed slots) are coalesced per source: every nudge asked for is followed by a
// PUBLISH sent no earlier than it was asked for, and a burst costs one at once and one per window.
describe('held-job nudges', () => {
  const keys = new RedisKeys('nudges', false);

  it('when ten nudges of a source come at once, then two PUBLISHes go out, the second after the last nudge; another source is not held back', async () => {
    const sent: Array<{ message: string; at: number }> = [];
    const connection = { publish: async (_channel: string, message: string) => (sent.push({ message, at: Date.now() }), 1) };
    const events = jobEventPublisher(connection as unknown as RedisClient, keys);
    const asked: number[] = [];
    const told: Array<Promise<void>> = [];
    for (let i = 0; i < 10; i += 1) {
      asked.push(Date.now());
      told.push(events.publishHeld('google_maps'));
    }
    await events.publishHeld('linkedin');
    await Promise.all(told);
    expect(sent.map((s) => s.message)).toEqual(['google_maps', 'linkedin', 'google_maps']);
    expect(sent[2]!.at).toBeGreaterThanOrEqual(Math.max(...asked));
    expect(sent[2]!.at - sent[0]!.at).toBeGreaterThanOrEqual(HELD_NUDGE_MS - 1);
    // after a quiet window, at once again
    await new Promise((r) => setTimeout(r, HELD_NUDGE_MS + 5));
    await events.publishHeld('google_maps');
    expect(sent).toHaveLength(4);
  });
});
