import type { Request, Response } from 'express';
import { ID_PATTERNS, errors, monitorErrors } from '@leadgen/domain';
import type { ApiDependencies } from '../../dependencies';
import { authenticatedAccount } from '../../http/authenticate';
import { linkNext, nextPageUrl, parseQuery } from '../../http/paging';
import { batchPollHeaders, presentBatch } from '../../presenters/batch-presenter';
import { presentJobSummary } from '../../presenters/job-presenter';
import { monitorBody, monitorRunBody } from '../../presenters/monitor-presenter';
import { audit } from '../../use-cases/audit-trail';
import {
  createMonitor,
  deleteMonitor,
  getMonitor,
  listMonitors,
  listRuns,
  runMonitorNow,
  updateMonitor,
  type MonitorInput,
} from '../../use-cases/manage-monitors';
import { checkShopifyCategory } from '../../use-cases/shopify-category-check';
import { allowsPlainHttp, checkJobWebhookUrl } from '../../use-cases/webhook-target-check';
import { parseIdempotencyKey } from '@leadgen/domain';
import {
  createMonitorSchema,
  parseMonitorBody,
  parseRunsCursor,
  runsCursor,
  runsQuerySchema,
  updateMonitorSchema,
} from './monitors-schema';

// /api/v1/monitors (decision 022): thin routes over use-cases/manage-monitors.ts.

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

/** A batch request's validation problem, its pointers moved under `#/batch/requests/{index}` (as POST /leads/batches does). */
function rebase(error: unknown, index: number): unknown {
  const problems = (error as { extra?: { errors?: Array<{ pointer: string; detail: string }> } }).extra?.errors;
  if (!problems) return error;
  return errors.validation(
    problems.map((p) => ({ pointer: `#/batch/requests/${index}${p.pointer.slice(1)}`, detail: `batch.requests[${index}]: ${p.detail}` })),
  );
}

/** What a generate (or a batch) checks beyond its schema, for the requests a monitor will run and its webhookUrl. */
async function checkRunnable(deps: ApiDependencies, input: MonitorInput): Promise<void> {
  if (input.request) checkShopifyCategory(deps.config, input.request);
  input.batch?.requests.forEach((request, index) => {
    try {
      checkShopifyCategory(deps.config, request);
    } catch (error) {
      throw rebase(error, index);
    }
  });
  if (input.webhookUrl) await checkJobWebhookUrl(deps, input.webhookUrl);
}

/** What an audit event of a monitor keeps (decision 019): ids, field names and counts, never its name, requests nor webhookUrl. */
const runs = (monitor: { request: unknown; batch: { requests: unknown[] } | null }) =>
  monitor.batch ? { runs: 'batch', requests: monitor.batch.requests.length } : { runs: 'request', requests: 1 };

export const createMonitorRoute = route(async (req, res, deps, accountId) => {
  const input = parseMonitorBody(createMonitorSchema(allowsPlainHttp(deps)), req.body, deps.config.monitors.minIntervalMs);
  await checkRunnable(deps, input);
  const monitor = await createMonitor(deps, accountId, { ...input, name: input.name!, schedule: input.schedule! });
  await audit(deps, res.locals, accountId, 'monitor.created', { monitorId: monitor.id, ...runs(monitor), enabled: monitor.enabled });
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
  const monitor = await updateMonitor(deps, accountId, param(req, 'id'), change);
  // A PATCH that sends `enabled` is a pause or a resume (with whatever else it changed); any other, a change.
  const action = change.enabled === false ? 'monitor.paused' : change.enabled === true ? 'monitor.resumed' : 'monitor.changed';
  await audit(deps, res.locals, accountId, action, { monitorId: monitor.id, fields: Object.keys(change).sort() });
  res.json(monitorBody(monitor));
});

export const deleteMonitorRoute = route(async (req, res, deps, accountId) => {
  const id = param(req, 'id');
  await deleteMonitor(deps, accountId, id);
  await audit(deps, res.locals, accountId, 'monitor.deleted', { monitorId: id });
  res.status(204).end();
});

export const runMonitorRoute = route(async (req, res, deps, accountId) => {
  const key = parseIdempotencyKey(req.get('Idempotency-Key'));
  const id = param(req, 'id');
  const run = await runMonitorNow(deps, accountId, id, key);
  // A replay made nothing new: only the run it answers again was recorded.
  if (run.replayed) res.setHeader('Idempotent-Replayed', 'true');
  else
    await audit(deps, res.locals, accountId, 'monitor.run_requested', {
      monitorId: id,
      ...(run.job ? { jobId: run.job.id } : { batchId: run.batch.id }),
    });
  if (run.job) {
    const body = presentJobSummary(run.job, deps.config.http.publicBaseUrl);
    res.setHeader('Location', body.pollUrl);
    res.status(202).json(body);
    return;
  }
  // A batch monitor's run is a batch: its body, as POST /leads/batches answers it.
  const body = presentBatch(run.batch, deps.config.http.publicBaseUrl);
  res.set(batchPollHeaders(run.batch));
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
