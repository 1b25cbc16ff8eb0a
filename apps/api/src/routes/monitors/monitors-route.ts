import type { Request, Response } from 'express';
import { ID_PATTERNS, monitorErrors } from '@leadgen/domain';
import type { ApiDependencies } from '../../dependencies';
import { authenticatedAccount } from '../../http/authenticate';
import { linkNext, nextPageUrl, parseQuery } from '../../http/paging';
import { presentJobSummary } from '../../presenters/job-presenter';
import { monitorBody, monitorRunBody } from '../../presenters/monitor-presenter';
import { createMonitor, deleteMonitor, getMonitor, listMonitors, listRuns, runMonitorNow, updateMonitor } from '../../use-cases/monitors';
import { checkShopifyCategory } from '../../use-cases/shopify-category-check';
import { allowsPlainHttp, checkJobWebhookUrl } from '../../use-cases/webhook-target-check';
import { parseIdempotencyKey } from '../leads/generate-route';
import {
  createMonitorSchema,
  parseMonitorBody,
  parseRunsCursor,
  runsCursor,
  runsQuerySchema,
  updateMonitorSchema,
  type MonitorInput,
} from './monitors-schema';

// /api/v1/monitors (decision 022): thin routes over use-cases/monitors.ts.

// A malformed id cannot name a monitor: the same 404 as an unknown one, without asking the database
// (which refuses a NUL in text outright).
const param = (req: Request, name: 'id'): string => {
  const value = String(req.params[name]);
  if (!ID_PATTERNS.monitor.test(value)) throw monitorErrors.notFound();
  return value;
};

type Handler = (req: Request, res: Response, deps: ApiDependencies, accountId: string) => Promise<void>;

const route = (handler: Handler) => (deps: ApiDependencies) => async (req: Request, res: Response) => {
  res.setHeader('Cache-Control', 'no-store');
  await handler(req, res, deps, authenticatedAccount(res.locals).id);
};

/** What a generate checks beyond its schema, for the request a monitor will run and its webhookUrl. */
async function checkRunnable(deps: ApiDependencies, input: MonitorInput): Promise<void> {
  if (input.request) checkShopifyCategory(deps.config, input.request);
  if (input.webhookUrl) await checkJobWebhookUrl(deps, input.webhookUrl);
}

export const createMonitorRoute = route(async (req, res, deps, accountId) => {
  const input = parseMonitorBody(createMonitorSchema(allowsPlainHttp(deps)), req.body, deps.config.monitors.minIntervalMs);
  await checkRunnable(deps, input);
  const monitor = await createMonitor(deps, accountId, { ...input, name: input.name!, request: input.request!, schedule: input.schedule! });
  res.setHeader('Location', `${deps.config.http.publicBaseUrl ?? ''}/api/v1/monitors/${monitor.id}`);
  res.status(201).json(monitorBody(monitor));
});

export const listMonitorsRoute = route(async (_req, res, deps, accountId) => {
  res.json({ items: (await listMonitors(deps, accountId)).map(monitorBody) });
});

export const getMonitorRoute = route(async (req, res, deps, accountId) => {
  res.json(monitorBody(await getMonitor(deps, accountId, param(req, 'id'))));
});

export const updateMonitorRoute = route(async (req, res, deps, accountId) => {
  const change = parseMonitorBody(updateMonitorSchema(allowsPlainHttp(deps)), req.body, deps.config.monitors.minIntervalMs);
  await checkRunnable(deps, change);
  res.json(monitorBody(await updateMonitor(deps, accountId, param(req, 'id'), change)));
});

export const deleteMonitorRoute = route(async (req, res, deps, accountId) => {
  await deleteMonitor(deps, accountId, param(req, 'id'));
  res.status(204).end();
});

export const runMonitorRoute = route(async (req, res, deps, accountId) => {
  const key = parseIdempotencyKey(req.get('Idempotency-Key'));
  const { job, replayed } = await runMonitorNow(deps, accountId, param(req, 'id'), key);
  const body = presentJobSummary(job, deps.config.http.publicBaseUrl);
  if (replayed) res.setHeader('Idempotent-Replayed', 'true');
  res.setHeader('Location', body.pollUrl);
  res.status(202).json(body);
});

export const listRunsRoute = route(async (req, res, deps, accountId) => {
  const query = parseQuery<{ limit: number; cursor?: string }>(runsQuerySchema, req.query);
  const page = await listRuns(deps, accountId, param(req, 'id'), {
    limit: query.limit,
    before: query.cursor === undefined ? undefined : parseRunsCursor(query.cursor),
  });
  const nextCursor = page.next ? runsCursor(page.next) : null;
  if (nextCursor) res.setHeader('Link', linkNext(nextPageUrl(req, deps.config.http.publicBaseUrl, nextCursor)));
  res.json({ items: page.items.map((run) => monitorRunBody(run, deps.config.http.publicBaseUrl)), nextCursor });
});
