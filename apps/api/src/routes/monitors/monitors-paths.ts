import type { RequestHandler, Router } from 'express';
import type { ApiDependencies } from '../../dependencies';
import {
  createMonitorRoute,
  deleteMonitorRoute,
  getMonitorRoute,
  listMonitorsRoute,
  listRunsRoute,
  runMonitorRoute,
  updateMonitorRoute,
} from './monitors-route';

/** The monitor paths under /api/v1 (decision 022). A run asked for takes the `generate` rate limit, as a generate does. */
export function mountMonitorRoutes(
  v1: Router,
  deps: ApiDependencies,
  parts: {
    auth: RequestHandler;
    limit: RequestHandler;
    generateLimit: RequestHandler;
    body: RequestHandler;
    methodNotAllowed: (...allow: string[]) => RequestHandler;
  },
): void {
  const { auth, limit, generateLimit, body, methodNotAllowed } = parts;
  v1.post('/monitors', auth, limit, body, createMonitorRoute(deps));
  v1.get('/monitors', auth, limit, listMonitorsRoute(deps));
  v1.all('/monitors', methodNotAllowed('GET', 'POST'));
  v1.get('/monitors/:id', auth, limit, getMonitorRoute(deps));
  v1.patch('/monitors/:id', auth, limit, body, updateMonitorRoute(deps));
  v1.delete('/monitors/:id', auth, limit, deleteMonitorRoute(deps));
  v1.all('/monitors/:id', methodNotAllowed('GET', 'PATCH', 'DELETE'));
  v1.post('/monitors/:id/run', auth, generateLimit, runMonitorRoute(deps));
  v1.all('/monitors/:id/run', methodNotAllowed('POST'));
  v1.get('/monitors/:id/runs', auth, limit, listRunsRoute(deps));
  v1.all('/monitors/:id/runs', methodNotAllowed('GET'));
}
