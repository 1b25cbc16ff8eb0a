import type { Request, Response } from 'express';
import type { ApiDependencies } from '../dependencies';

/** GET /healthz: the process is up (for liveness probes; touches nothing else). */
export function healthRoute(_req: Request, res: Response): void {
  res.json({ status: 'ok' });
}

async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), ms)));
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** GET /readyz: PostgreSQL and Redis answer (for readiness probes and load balancers). */
export function readyRoute(deps: ApiDependencies, isShuttingDown: () => boolean) {
  return async (_req: Request, res: Response): Promise<void> => {
    const [postgres, redis] = await Promise.allSettled([
      within(2000, deps.db.$queryRaw`SELECT 1`),
      within(2000, deps.redis.ping()),
    ]);
    const checks = {
      postgres: postgres.status === 'fulfilled' ? 'ok' : 'unavailable',
      redis: redis.status === 'fulfilled' ? 'ok' : 'unavailable',
    };
    const ready = !isShuttingDown() && checks.postgres === 'ok' && checks.redis === 'ok';
    res.setHeader('Cache-Control', 'no-store');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : isShuttingDown() ? 'shutting_down' : 'unavailable', checks });
  };
}
