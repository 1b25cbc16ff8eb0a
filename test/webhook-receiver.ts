import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** How the receiver answers one request: a status (and body), or `hold` (never answers). */
export type Answer = { status: number; body?: string } | 'hold';

/**
 * A local webhook consumer for tests: records every request and answers each as `answer` says
 * (200 by default). `next(n)` waits for the nth request overall.
 */
export async function startWebhookReceiver(answer: (request: ReceivedWebhook, index: number) => Answer = () => ({ status: 200 })) {
  const received: ReceivedWebhook[] = [];
  const held: ServerResponse[] = [];
  const waiters: Array<() => void> = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name] = value;
      const request = { path: req.url ?? '/', headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(request);
      for (const wake of waiters.splice(0)) wake();
      const reply = answer(request, received.length - 1);
      if (reply === 'hold') {
        held.push(res);
        return;
      }
      res.writeHead(reply.status, {
        'Content-Type': 'text/plain',
        ...(reply.status >= 300 && reply.status < 400 ? { Location: 'http://127.0.0.1:9/elsewhere' } : {}),
      });
      res.end(reply.body ?? 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    received,
    url: (path = '/hook') => `${base}${path}`,
    /** waits until `count` requests (matching `filter`) have come */
    async waitFor(count: number, filter: (r: ReceivedWebhook) => boolean = () => true, timeoutMs = 20_000): Promise<ReceivedWebhook[]> {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const matching = received.filter(filter);
        if (matching.length >= count) return matching;
        if (Date.now() > until) throw new Error(`${matching.length} of ${count} webhook requests came within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 100);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
