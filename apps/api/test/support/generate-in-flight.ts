import { exportPacing } from '../../src/http/export-pacing';

/**
 * Another account's sync generate held in flight in the API (no worker serves its queue, so it waits for its job), as
 * the pacing tests need "another request at work": resolves once the API counts it; `release()` ends it.
 */
export async function generateInFlight(port: number, auth: Record<string, string>, key: string): Promise<{ release(): Promise<void> }> {
  const controller = new AbortController();
  const waiting = fetch(`http://127.0.0.1:${port}/api/v1/leads/generate`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': `${key}-${Date.now()}` },
    body: JSON.stringify({ source: 'google_maps', category: 'dentist', state: 'US', city: 'Austin', maxResults: 5 }),
    signal: controller.signal,
  }).catch((error: Error) => error);
  for (let i = 0; i < 200 && exportPacing.others() === 0; i += 1) await new Promise((r) => setTimeout(r, 10));
  return {
    release: async () => {
      controller.abort();
      await waiting;
    },
  };
}
