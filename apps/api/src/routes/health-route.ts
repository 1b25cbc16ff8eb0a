import type { Request, Response } from 'express';
import type { ReadinessReport } from '@leadgen/ops';

/** GET /healthz: the process is up (for liveness probes; touches nothing else). */
export function healthRoute(_req: Request, res: Response): void {
  res.json({ status: 'ok' });
}

/** GET /readyz: PostgreSQL (schema current) and Redis answer, not draining (for readiness probes and load balancers). */
export function readyRoute(readiness: () => Promise<ReadinessReport>) {
  return async (_req: Request, res: Response): Promise<void> => {
    const { ready, ...report } = await readiness();
    res.setHeader('Cache-Control', 'no-store');
    res.status(ready ? 200 : 503).json(report);
  };
}
