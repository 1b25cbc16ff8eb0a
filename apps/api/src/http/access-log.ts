import type { Request, RequestHandler } from 'express';
import { logger } from '@leadgen/logger';
import type { AccountRecord } from '@leadgen/db';

// Probes come every few seconds from every load balancer and kubelet: written only at debug.
const PROBES = new Set(['/healthz', '/readyz']);

/**
 * The route a request matched, as its template (`/api/v1/leads/jobs/:jobId`), so logs and metric labels
 * stay bounded whatever ids clients send. Mounted apps (the board) are one route; anything unmatched is
 * `unmatched`.
 */
export function routeTemplate(req: Request, locals: Record<string, unknown>): string {
  const base = typeof locals.routeBase === 'string' ? locals.routeBase : '';
  const route = req.route as { path?: unknown } | undefined;
  if (route && typeof route.path === 'string') return `${base}${route.path}`;
  if (base) return `${base}/*`;
  return 'unmatched';
}

/** First in a mounted router: Express restores `req.baseUrl` once the router is left, before 'finish'. */
export const rememberRouteBase: RequestHandler = (req, res, next) => {
  res.locals.routeBase = req.baseUrl;
  next();
};

export interface RequestObserver {
  (req: Request, status: number, seconds: number, route: string): void;
}

/**
 * One line per request once it is answered, at info: method, route template, status, duration and
 * the request and account ids (read from the response's locals: the 'finish' event runs outside the
 * request's log context). Observers (the metrics) get the same figures.
 */
export function accessLog(observers: RequestObserver[] = []): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ns = process.hrtime.bigint() - started;
      const route = PROBES.has(req.path) ? req.path : routeTemplate(req, res.locals);
      const account = res.locals.account as AccountRecord | undefined;
      const write = PROBES.has(req.path) ? logger.debug : logger.info;
      write('request', {
        method: req.method,
        route,
        status: res.statusCode,
        ms: Number(ns / 1_000_000n),
        requestId: res.locals.requestId as string | undefined,
        accountId: account?.id,
      });
      for (const observe of observers) observe(req, res.statusCode, Number(ns) / 1e9, route);
    });
    next();
  };
}
