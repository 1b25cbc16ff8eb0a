import { errors, parseIdempotencyKey } from '@leadgen/domain';
import type { ApiDependencies } from '../../dependencies';
import { linkNext, nextPageUrl } from '../../http/paging';
import type { Valid } from '../../http/request-validation';
import { accountRoute } from '../../http/route-table';
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
import { checkServableRequest } from '../../use-cases/servable-request-check';
import { checkJobWebhookUrl } from '../../use-cases/webhook-target-check';
import type { IdPath } from '../path-params';
import { runsCursor, type RunsQuery } from './monitors-schema';

// /api/v1/monitors (decision 022): thin routes over use-cases/manage-monitors.ts.

const route = accountRoute;

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
  if (input.request) checkServableRequest(deps.config, input.request);
  input.batch?.requests.forEach((request, index) => {
    try {
      checkServableRequest(deps.config, request);
    } catch (error) {
      throw rebase(error, index);
    }
  });
  if (input.webhookUrl) await checkJobWebhookUrl(deps, input.webhookUrl);
}

/** What an audit event of a monitor keeps (decision 019): ids, field names and counts, never its name, requests nor webhookUrl. */
const runs = (monitor: { request: unknown; batch: { requests: unknown[] } | null }) =>
  monitor.batch ? { runs: 'batch', requests: monitor.batch.requests.length } : { runs: 'request', requests: 1 };

export const createMonitorRoute = route(async (_req, res, deps, accountId, { body: input }: Valid<unknown, unknown, MonitorInput>) => {
  await checkRunnable(deps, input);
  const monitor = await createMonitor(deps, accountId, { ...input, name: input.name!, schedule: input.schedule! });
  await audit(deps, res.locals, accountId, 'monitor.created', { monitorId: monitor.id, ...runs(monitor), enabled: monitor.enabled });
  res.setHeader('Location', `${deps.config.http.publicBaseUrl ?? ''}/api/v1/monitors/${monitor.id}`);
  res.status(201).json(monitorBody(monitor));
});

export const listMonitorsRoute = route(async (_req, res, deps, accountId) => {
  res.json({ items: (await listMonitors(deps, accountId)).map(monitorBody) });
});

export const getMonitorRoute = route(async (_req, res, deps, accountId, { params }: Valid<IdPath>) => {
  res.json(monitorBody(await getMonitor(deps, accountId, params.id)));
});

export const updateMonitorRoute = route(
  async (_req, res, deps, accountId, { params, body: change }: Valid<IdPath, unknown, MonitorInput>) => {
    await checkRunnable(deps, change);
    const monitor = await updateMonitor(deps, accountId, params.id, change);
    // A PATCH that sends `enabled` is a pause or a resume (with whatever else it changed); any other, a change.
    const action = change.enabled === false ? 'monitor.paused' : change.enabled === true ? 'monitor.resumed' : 'monitor.changed';
    await audit(deps, res.locals, accountId, action, { monitorId: monitor.id, fields: Object.keys(change).sort() });
    res.json(monitorBody(monitor));
  },
);

export const deleteMonitorRoute = route(async (_req, res, deps, accountId, { params: { id } }: Valid<IdPath>) => {
  await deleteMonitor(deps, accountId, id);
  await audit(deps, res.locals, accountId, 'monitor.deleted', { monitorId: id });
  res.status(204).end();
});

export const runMonitorRoute = route(async (req, res, deps, accountId, { params: { id } }: Valid<IdPath>) => {
  const key = parseIdempotencyKey(req.get('Idempotency-Key'));
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

export const listRunsRoute = route(async (req, res, deps, accountId, { params, query }: Valid<IdPath, RunsQuery>) => {
  const page = await listRuns(deps, accountId, params.id, { limit: query.limit, before: query.cursor });
  const nextCursor = page.next ? runsCursor(page.next) : null;
  if (nextCursor) res.setHeader('Link', linkNext(nextPageUrl(req, deps.config.http.publicBaseUrl, nextCursor)));
  res.json({ items: page.items.map((run) => monitorRunBody(run, deps.config.http.publicBaseUrl)), nextCursor });
});
