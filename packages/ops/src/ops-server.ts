import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReadinessReport } from './readiness';

/** The paths every long-running process serves on its operations port (and the API on its public port). */
export const OPS_PATHS = { health: '/healthz', ready: '/readyz' } as const;

export type OpsHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface OpsServerOptions {
  host: string;
  /** 0: no listener (two processes on one host need two ports, or one of them none) */
  port: number;
  readiness: () => Promise<ReadinessReport>;
  /** further GET endpoints by path: `/metrics` is to be mounted here */
  routes?: Record<string, OpsHandler>;
}

export interface OpsServer {
  port: number;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown, contentType = 'application/json'): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(body));
}

/**
 * The operations port: liveness (`/healthz`: the event loop answers) and readiness (`/readyz`:
 * dependencies answer, schema current, not draining) apart from the public traffic, so probes and
 * scrapers need no route through the load balancer. Plain node:http: it must answer when the
 * application's own stack is what is stuck.
 */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer | null> {
  if (options.port === 0) return null;
  const routes: Record<string, OpsHandler> = {
    [OPS_PATHS.health]: (_req, res) => send(res, 200, { status: 'ok' }),
    [OPS_PATHS.ready]: async (_req, res) => {
      const report = await options.readiness();
      const { ready, ...body } = report;
      send(res, ready ? 200 : 503, body);
    },
    ...options.routes,
  };
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const route = routes[path];
    if (!route) return send(res, 404, { type: 'about:blank', title: 'Not Found', status: 404 }, 'application/problem+json');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return send(res, 405, { type: 'about:blank', title: 'Method Not Allowed', status: 405 }, 'application/problem+json');
    }
    Promise.resolve(route(req, res)).catch(() => {
      if (!res.headersSent)
        send(res, 500, { type: 'about:blank', title: 'Internal Server Error', status: 500 }, 'application/problem+json');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(
              `OPS_PORT ${options.port} on ${options.host} is in use: give each process on a host its own OPS_PORT, or OPS_PORT=0 for none`,
              { cause: error },
            )
          : error,
      );
    });
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Probes hold keep-alive sockets; nothing on this port is worth waiting for at exit.
      server.closeAllConnections();
      await closed;
    },
  };
}
