import Joi from 'joi';
import { MAX_BATCH_REQUESTS, errors, scheduleProblems, type FieldProblem, type GenerationRequest } from '@leadgen/domain';
import { jsonPointer, unsafeContentProblems } from '../../http/body-guard';
import { cursorKey, decodeCursor, encodeCursor } from '../../http/paging';
import { checkGenerationRequest, generateRequestSchema, normalizeGenerationRequest } from '../leads/generate-schema';
import type { MonitorInput } from '../../use-cases/manage-monitors';
import { webhookUrl } from '../webhooks/webhooks-schema';

// /api/v1/monitors (decision 022): a generation request, or a batch of them, on a schedule.

const name = Joi.string().trim().min(1).max(200);

/** the generation request each run submits, as POST /leads/generate takes it (excludeDelivered is forced) */
const request = generateRequestSchema.keys({
  /** always true for a monitor's runs: true or left out */
  excludeDelivered: Joi.boolean()
    .strict()
    .valid(true)
    .messages({ 'any.only': "{{#label}}: a monitor's runs always exclude delivered leads" }),
  /** set on the monitor itself, not on its request */
  webhookUrl: Joi.forbidden().messages({ 'any.unknown': '{{#label}}: set webhookUrl on the monitor, not on its request' }),
});

/**
 * `{ requests }`: each run is a batch of these (decision 021). The array's items are checked one by one as
 * POST /leads/batches checks them (parseMonitorBody), with the monitor's own rules on top.
 */
const batch = Joi.object({
  /** the generation requests each run submits as one batch, 1..1000, each as POST /leads/generate takes one */
  requests: Joi.array().min(1).max(MAX_BATCH_REQUESTS).required(),
}).messages({
  'object.unknown': "{{#label}} is not a field of a monitor's batch (requests)",
  'object.base': '{{#label}} must be an object with requests (an array of generation requests)',
});

/** `{ every }` (ISO 8601 duration) or `{ cron, timezone }` (five fields, an IANA time zone) */
const schedule = Joi.object({
  /** elapsed time between runs: an ISO 8601 duration such as PT6H or P1D */
  every: Joi.string().max(100),
  /** wall-clock runs: a five-field cron expression such as "0 7 * * 1" */
  cron: Joi.string().max(200),
  /** the IANA time zone the cron expression is read in, such as Europe/Berlin */
  timezone: Joi.string().max(100),
})
  .xor('every', 'cron')
  .with('cron', 'timezone')
  .without('every', ['cron', 'timezone'])
  .messages({
    'object.xor': '{{#label}} takes either every or cron (with timezone), not both',
    'object.missing': '{{#label}} needs every (an ISO 8601 duration) or cron with timezone',
    'object.with': '{{#label}}: cron needs a timezone (an IANA time zone such as Europe/Berlin or UTC)',
    'object.without': '{{#label}}: every takes no cron or timezone',
    'object.unknown': '{{#label}} is not a field of a schedule (every, or cron and timezone)',
  });

const maxCreditsPerRun = Joi.number().strict().integer().min(1).max(1_000_000);

/** POST /api/v1/monitors */
export const createMonitorSchema = (allowHttp: boolean) =>
  Joi.object({
    /** a name for yourself, 1..200 characters */
    name: name.required(),
    /** the generation request each run submits; or `batch` */
    request: request.optional(),
    /** `{ requests }`: each run submits them as one batch; or `request` */
    batch,
    schedule: schedule.required(),
    /** where each run's terminal event and monitor.paused are POSTed, signed with the account's default webhook secret */
    webhookUrl: webhookUrl(allowHttp),
    /** a run may reserve at most this many credits: its request's worst case must fit */
    maxCreditsPerRun,
    /** false creates it paused; default true */
    enabled: Joi.boolean().strict(),
  })
    .xor('request', 'batch')
    .required()
    .messages({
      'object.unknown': '{{#label}} is not a field of a monitor',
      'object.base': 'the body must be a JSON object',
      'object.xor': 'a monitor runs either request or batch, not both',
      'object.missing': 'a monitor needs request (one generation request) or batch (an object with requests)',
    });

/** PATCH /api/v1/monitors/{id}: the fields to change, at least one. */
export const updateMonitorSchema = (allowHttp: boolean) =>
  Joi.object({
    name,
    /** a new request (a batch monitor becomes a monitor of one request) */
    request: request.optional(),
    /** a new batch (a monitor of one request becomes a batch monitor) */
    batch,
    schedule,
    webhookUrl: webhookUrl(allowHttp).allow(null),
    maxCreditsPerRun: maxCreditsPerRun.allow(null),
    /** false pauses the monitor; true resumes it (its next run is the schedule's next time from now) */
    enabled: Joi.boolean().strict(),
  })
    .min(1)
    .nand('request', 'batch')
    .required()
    .messages({
      'object.unknown': '{{#label}} is not a field of a monitor',
      'object.base': 'the body must be a JSON object',
      'object.min': 'send at least one of name, request, batch, schedule, webhookUrl, maxCreditsPerRun, enabled',
      'object.nand': 'a monitor runs either request or batch, not both',
    });

/** `body.batch.requests` when it is an array: its items are checked one by one, not by the object schema. */
function batchItems(body: unknown): unknown[] | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const batchField = (body as { batch?: unknown }).batch;
  if (!batchField || typeof batchField !== 'object' || Array.isArray(batchField)) return null;
  const items = (batchField as { requests?: unknown }).requests;
  return Array.isArray(items) ? items : null;
}

/**
 * A batch's requests, each checked exactly as POST /leads/batches checks one (every problem, pointers such as
 * `#/batch/requests/3/state`), plus the rules of a monitor's request: excludeDelivered is always true, and
 * webhookUrl belongs on the monitor (the batch's terminal event goes there).
 */
function batchRequestProblems(items: unknown[]): { requests: GenerationRequest[]; problems: FieldProblem[] } {
  const requests: GenerationRequest[] = [];
  const problems: FieldProblem[] = [];
  const at = (index: number, pointer: string, detail: string) =>
    problems.push({ pointer: `#/batch/requests/${index}${pointer.slice(1)}`, detail: `batch.requests[${index}]: ${detail}` });
  items.forEach((item, index) => {
    const checked = checkGenerationRequest(item);
    for (const problem of checked.problems) at(index, problem.pointer, problem.detail);
    if (!checked.request) return;
    const raw = item as { excludeDelivered?: unknown; webhookUrl?: unknown };
    if (raw.excludeDelivered === false) at(index, '#/excludeDelivered', "a monitor's runs always exclude delivered leads");
    if (raw.webhookUrl !== undefined) at(index, '#/webhookUrl', 'set webhookUrl on the monitor, not on its requests');
    const request = checked.request;
    delete request.excludeDelivered;
    requests.push(request);
  });
  return { requests, problems };
}

/** Validates a monitor body, every problem at once (400 validation_failed); the schedule's own rules and a batch's requests included. */
export function parseMonitorBody(schema: Joi.ObjectSchema, body: unknown, minIntervalMs: number): MonitorInput {
  const items = batchItems(body);
  const scanned = items
    ? { ...(body as Record<string, unknown>), batch: { ...((body as { batch: object }).batch as object), requests: [] } }
    : body;
  const unsafe = unsafeContentProblems(scanned);
  const { value, error } = schema.validate(body, { abortEarly: false, errors: { wrap: { label: false } } });
  const problems: FieldProblem[] = (error?.details ?? []).map((d) => ({ pointer: jsonPointer(d.path), detail: d.message }));
  const input = (value ?? {}) as MonitorInput;
  if (input.schedule && !problems.some((p) => p.pointer.startsWith('#/schedule'))) {
    problems.push(...scheduleProblems(input.schedule, minIntervalMs));
  }
  const checkedBatch = items && items.length <= MAX_BATCH_REQUESTS ? batchRequestProblems(items) : null;
  if (checkedBatch) problems.push(...checkedBatch.problems);
  if (error || unsafe.length > 0 || problems.length > 0) {
    const flagged = new Set(unsafe.map((p) => p.pointer));
    throw errors.validation([...unsafe, ...problems.filter((p) => !flagged.has(p.pointer))]);
  }
  if (input.request) input.request = normalizeGenerationRequest(input.request);
  if (input.request) delete input.request.excludeDelivered;
  if (input.batch && checkedBatch) input.batch = { requests: checkedBatch.requests };
  if (input.schedule && 'cron' in input.schedule) input.schedule = { cron: input.schedule.cron.trim(), timezone: input.schedule.timezone };
  return input;
}

export const RUNS_PAGE_DEFAULT = 20;
export const RUNS_PAGE_LIMIT = 100;

/** GET /api/v1/monitors/{id}/runs: `limit`, `cursor`. */
export const runsQuerySchema = Joi.object({
  limit: Joi.number().integer().min(1).max(RUNS_PAGE_LIMIT).default(RUNS_PAGE_DEFAULT),
  cursor: Joi.string().max(500),
}).messages({ 'object.unknown': '{{#label}} is not a parameter of this list (limit, cursor)' });

const CURSOR_KIND = 'monitor-runs';

export function runsCursor(last: { createdAt: Date; id: string }): string {
  return encodeCursor(CURSOR_KIND, [last.createdAt.toISOString(), last.id]);
}

export function parseRunsCursor(cursor: string): { createdAt: Date; id: string } {
  // Each key checked against what the SQL accepts (paging.ts): a tampered cursor is a 400, never a 500.
  const [at, id] = decodeCursor(CURSOR_KIND, cursor) ?? [];
  const createdAt = cursorKey.time(at);
  const runId = cursorKey.text(id);
  if (!createdAt || runId === null) {
    throw errors.validation([{ pointer: '#/cursor', detail: 'cursor is not one this list gave out' }]);
  }
  return { createdAt, id: runId };
}
