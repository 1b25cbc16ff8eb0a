import type { Request, Response } from 'express';
import { errors, parseIdempotencyKey } from '@leadgen/domain';
import type { BatchLeadRow, BatchRecord } from '@leadgen/db';
import type { ApiDependencies } from '../../dependencies';
import { authenticatedAccount } from '../../http/authenticate';
import { encodeCursor, linkNext, nextPageUrl } from '../../http/paging';
import type { Valid } from '../../http/request-validation';
import { exportFormat, rowsPart, streamExport } from '../../lead-export';
import { batchPollHeaders, presentBatch } from '../../presenters/batch-presenter';
import { presentLeadItemJson } from '../../presenters/lead-presenter';
import { audit } from '../../use-cases/audit-trail';
import { cancelBatch } from '../../use-cases/cancel-batch';
import { submitBatch, type BatchRequest } from '../../use-cases/submit-batch';
import { areaBatchChildren, readBatchAreaSearch } from '../../use-cases/area-searches';
import { requestFingerprint } from '@leadgen/commands';
import type { AreaBatchRequest } from './area-schema';
import {
  getAccountBatch,
  listBatches,
  listBatchJobs,
  batchLeadsSide,
  readBatchLeads,
  type BatchJobsQuery,
  type ListBatchesQuery,
} from '../../use-cases/read-batches';
import { EXPORT_BATCH } from '../../use-cases/read-leads';
import { checkGoogleFieldsTier } from '../../use-cases/google-fields-check';
import { checkServableRequest } from '../../use-cases/servable-request-check';
import { checkJobWebhookUrl } from '../../use-cases/webhook-target-check';
import type { BatchPath } from '../path-params';
import type { BatchLeadsQuery } from './batches-schema';

async function sendBatch(res: Response, deps: ApiDependencies, batch: BatchRecord, status = 200): Promise<void> {
  const areaSearch = await readBatchAreaSearch(deps.db, batch.id);
  res.setHeader('Cache-Control', 'no-store');
  res.set(batchPollHeaders(batch));
  res.status(status).json(presentBatch(batch, deps.config.http.publicBaseUrl, areaSearch));
}

/** The route table's value of an area batch (area-schema.ts) rather than a batch of requests. */
const isAreaBatch = (body: BatchRequest | AreaBatchRequest): body is AreaBatchRequest => 'search' in body;

/**
 * POST /api/v1/leads/batches with `area` or `quoteId` (decision 039): the area's tiles (a quote's, or its initial
 * grid) become the children; the key binds the body as sent.
 */
async function createAreaBatch(
  deps: ApiDependencies,
  req: Request,
  res: Response,
  accountId: string,
  idempotencyKey: string,
  parsed: AreaBatchRequest,
) {
  if (parsed.search) checkGoogleFieldsTier(deps.config, parsed.search.request, '#/request');
  if (parsed.webhookUrl) await checkJobWebhookUrl(deps, parsed.webhookUrl);
  const fingerprint = requestFingerprint({ areaBatch: req.body as unknown });
  const { area, quoteId, requests } = await areaBatchChildren(deps, accountId, parsed);
  const batch = {
    requests,
    excludeDelivered: parsed.excludeDelivered,
    maxCredits: parsed.maxCredits,
    webhookUrl: parsed.webhookUrl,
    name: parsed.name,
  };
  const created = await submitBatch(deps, {
    accountId,
    idempotencyKey,
    batch,
    fingerprint,
    area: { area, quoteId, maxResults: parsed.maxResults },
  });
  if (created.replayed) res.setHeader('Idempotent-Replayed', 'true');
  res.setHeader('Location', presentBatch(created.batch, deps.config.http.publicBaseUrl).pollUrl);
  await sendBatch(res, deps, created.batch, 202);
}

/** POST /api/v1/leads/batches: 202 with the batch body and Location (a batch is long by nature: no wait). */
export function createBatchRoute(deps: ApiDependencies) {
  return async (req: Request, res: Response, { body }: Valid<unknown, unknown, BatchRequest | AreaBatchRequest>): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    const idempotencyKey = parseIdempotencyKey(req.get('Idempotency-Key'));
    if (isAreaBatch(body)) return createAreaBatch(deps, req, res, account.id, idempotencyKey, body);
    const batch = body;
    batch.requests.forEach((request, index) => {
      try {
        checkServableRequest(deps.config, request);
      } catch (error) {
        throw rebase(error, index);
      }
    });
    if (batch.webhookUrl) await checkJobWebhookUrl(deps, batch.webhookUrl);
    // Each distinct target once: a thousand children naming one URL cost one resolution.
    const targets = new Map<string, number>();
    batch.requests.forEach(
      (request, index) => request.webhookUrl && !targets.has(request.webhookUrl) && targets.set(request.webhookUrl, index),
    );
    for (const [url, index] of targets) await checkJobWebhookUrl(deps, url).catch((error: unknown) => Promise.reject(rebase(error, index)));

    const created = await submitBatch(deps, { accountId: account.id, idempotencyKey, batch });
    if (created.replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.setHeader('Location', presentBatch(created.batch, deps.config.http.publicBaseUrl).pollUrl);
    await sendBatch(res, deps, created.batch, 202);
  };
}

/** A request's validation problem, its pointers moved under `#/requests/{index}`. */
function rebase(error: unknown, index: number): unknown {
  const problems = (error as { extra?: { errors?: Array<{ pointer: string; detail: string }> } }).extra?.errors;
  if (!problems) return error;
  return errors.validation(
    problems.map((p) => ({ pointer: `#/requests/${index}${p.pointer.slice(1)}`, detail: `requests[${index}]: ${p.detail}` })),
  );
}

export function getBatchRoute(deps: ApiDependencies) {
  return async (_req: Request, res: Response, { params }: Valid<BatchPath>): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    await sendBatch(res, deps, await getAccountBatch(deps, account.id, params.batchId));
  };
}

export function cancelBatchRoute(deps: ApiDependencies) {
  return async (_req: Request, res: Response, { params }: Valid<BatchPath>): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    await sendBatch(res, deps, await cancelBatch(deps, account.id, params.batchId));
  };
}

export function listBatchesRoute(deps: ApiDependencies) {
  return async (req: Request, res: Response, { query }: Valid<unknown, ListBatchesQuery>): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    const page = await listBatches(deps, account.id, query);
    res.setHeader('Cache-Control', 'no-store');
    if (page.nextCursor) res.setHeader('Link', linkNext(nextPageUrl(req, deps.config.http.publicBaseUrl, page.nextCursor)));
    res.status(200).json(page);
  };
}

export function batchJobsRoute(deps: ApiDependencies) {
  return async (req: Request, res: Response, { params, query }: Valid<BatchPath, BatchJobsQuery>): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    const page = await listBatchJobs(deps, account.id, params.batchId, query);
    res.setHeader('Cache-Control', 'no-store');
    if (page.nextCursor) res.setHeader('Link', linkNext(nextPageUrl(req, deps.config.http.publicBaseUrl, page.nextCursor)));
    res.status(200).json(page);
  };
}

const keysetOf = (row: BatchLeadRow) => ({ batchIndex: row.batchIndex, position: row.position });

/**
 * GET /api/v1/leads/batches/{batchId}/leads (and `.csv` / `.jsonl`): the batch's leads, children in request
 * order and each one's in delivery order, readable while the batch runs (the same formats and streaming as a job's).
 */
export function batchLeadsRoute(deps: ApiDependencies, download?: 'csv' | 'jsonl') {
  return async (req: Request, res: Response, { params, query }: Valid<BatchPath, BatchLeadsQuery>): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    const batch = await getAccountBatch(deps, account.id, params.batchId);
    const format = download ?? exportFormat(req, query.format);
    const complete = batch.status !== 'running';
    // While the batch runs the set grows: say so in every format (the JSON body has it too).
    const marks = { 'Result-Complete': String(complete), 'Batch-Status': batch.status };
    const side = await batchLeadsSide(deps, batch);
    const first = await readBatchLeads(side, batch.id, query.cursor ?? null, format === 'json' ? query.limit + 1 : EXPORT_BATCH);
    if (format === 'json') {
      const page = first.slice(0, query.limit);
      const last = page.at(-1);
      const nextCursor = first.length > query.limit && last ? encodeCursor('bl', [last.batchIndex, last.position]) : null;
      for (const [name, value] of Object.entries(marks)) res.setHeader(name, value);
      res.setHeader('Cache-Control', 'no-store');
      if (nextCursor) res.setHeader('Link', linkNext(nextPageUrl(req, deps.config.http.publicBaseUrl, nextCursor)));
      const head = JSON.stringify({ batchId: batch.id, status: batch.status, complete, nextCursor });
      res
        .status(200)
        .type('application/json')
        .send(`${head.slice(0, -1)},"items":[${page.map(presentLeadItemJson).join(',')}]}`);
      return;
    }
    await streamExport(res, format, {
      first: rowsPart(first, format),
      next: async (part) => rowsPart(await readBatchLeads(side, batch.id, keysetOf(part.last as BatchLeadRow), EXPORT_BATCH), format),
      filename: `leads-${batch.id}`,
      headers: marks,
      settle: (outcome) => audit(deps, res.locals, account.id, 'leads.exported', { selection: { batchId: batch.id }, format, ...outcome }),
    });
  };
}
