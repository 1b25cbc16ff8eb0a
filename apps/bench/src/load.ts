// The load generator: a closed loop of `concurrency` clients over one keep-alive undici pool,
// in the bench's own process (its CPU is reported as "load"). Closed, not open-loop: each client
// sends its next request when its previous one answered, so a slow server gets fewer requests
// rather than an unbounded queue, and req/s is what the server sustains at that concurrency.
import { Pool } from 'undici';

export interface Answer {
  status: number;
  body: string;
}

export interface LoadResult {
  /** requests that answered as expected and finished inside the window */
  okInWindow: number;
  /** every request that answered as expected, including those in flight when the window closed */
  okTotal: number;
  errors: number;
  firstError?: string;
  windowMs: number;
  /** from start until the last in-flight request answered: the span that CPU is measured over */
  totalMs: number;
  /** ms, of every successful request */
  latencies: number[];
}

export type Task = (client: HttpClient, i: number) => Promise<{ ok: boolean; error?: string }>;

export class HttpClient {
  readonly pool: Pool;

  constructor(origin: string, connections: number) {
    this.pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 600_000 });
  }

  async request(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    headers: Record<string, string> = {},
    body?: string,
  ): Promise<Answer> {
    const res = await this.pool.request({ method, path, headers, body });
    return { status: res.statusCode, body: await res.body.text() };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

export async function closedLoop(client: HttpClient, concurrency: number, durationMs: number, task: Task): Promise<LoadResult> {
  const latencies: number[] = [];
  let okInWindow = 0;
  let okTotal = 0;
  let errors = 0;
  let firstError: string | undefined;
  let next = 0;
  const start = performance.now();
  const deadline = start + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const i = next++;
        const t0 = performance.now();
        let outcome: { ok: boolean; error?: string };
        try {
          outcome = await task(client, i);
        } catch (error) {
          outcome = { ok: false, error: (error as Error).message };
        }
        const t1 = performance.now();
        if (outcome.ok) {
          okTotal += 1;
          if (t1 <= deadline) okInWindow += 1;
          latencies.push(t1 - t0);
        } else {
          errors += 1;
          firstError ??= outcome.error;
          // A failing server must not turn the loop into a busy spin that starves it further.
          await new Promise((r) => setTimeout(r, 10));
        }
      }
    }),
  );
  return { okInWindow, okTotal, errors, firstError, windowMs: durationMs, totalMs: performance.now() - start, latencies };
}

export function percentile(values: number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
