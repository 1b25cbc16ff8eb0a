import Joi from 'joi';
import { errors, reservationFor, scheduleProblems, type FieldProblem, type GenerationRequest, type MonitorSchedule } from '@leadgen/domain';
import { jsonPointer, unsafeContentProblems } from '../../http/body-guard';
import { cursorKey, decodeCursor, encodeCursor } from '../../http/paging';
import { generateRequestSchema, normalizeGenerationRequest } from '../leads/generate-schema';
import { webhookUrl } from '../webhooks/webhooks-schema';

// /api/v1/monitors (decision 022): a generation request on a schedule.

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
    request: request.required(),
    schedule: schedule.required(),
    /** where each run's terminal event and monitor.paused are POSTed, signed with the account's default webhook secret */
    webhookUrl: webhookUrl(allowHttp),
    /** a run may reserve at most this many credits: its request's worst case must fit */
    maxCreditsPerRun,
    /** false creates it paused; default true */
    enabled: Joi.boolean().strict(),
  })
    .required()
    .messages({ 'object.unknown': '{{#label}} is not a field of a monitor', 'object.base': 'the body must be a JSON object' });

/** PATCH /api/v1/monitors/{id}: the fields to change, at least one. */
export const updateMonitorSchema = (allowHttp: boolean) =>
  Joi.object({
    name,
    request: request.optional(),
    schedule,
    webhookUrl: webhookUrl(allowHttp).allow(null),
    maxCreditsPerRun: maxCreditsPerRun.allow(null),
    /** false pauses the monitor; true resumes it (its next run is the schedule's next time from now) */
    enabled: Joi.boolean().strict(),
  })
    .min(1)
    .required()
    .messages({
      'object.unknown': '{{#label}} is not a field of a monitor',
      'object.base': 'the body must be a JSON object',
      'object.min': 'send at least one of name, request, schedule, webhookUrl, maxCreditsPerRun, enabled',
    });

export interface MonitorInput {
  name?: string;
  request?: GenerationRequest;
  schedule?: MonitorSchedule;
  webhookUrl?: string | null;
  maxCreditsPerRun?: number | null;
  enabled?: boolean;
}

/** Validates a monitor body, every problem at once (400 validation_failed); the schedule's own rules included. */
export function parseMonitorBody(schema: Joi.ObjectSchema, body: unknown, minIntervalMs: number): MonitorInput {
  const unsafe = unsafeContentProblems(body);
  const { value, error } = schema.validate(body, { abortEarly: false, errors: { wrap: { label: false } } });
  const problems: FieldProblem[] = (error?.details ?? []).map((d) => ({ pointer: jsonPointer(d.path), detail: d.message }));
  const input = (value ?? {}) as MonitorInput;
  if (input.schedule && !problems.some((p) => p.pointer.startsWith('#/schedule'))) {
    problems.push(...scheduleProblems(input.schedule, minIntervalMs));
  }
  if (error || unsafe.length > 0 || problems.length > 0) {
    const flagged = new Set(unsafe.map((p) => p.pointer));
    throw errors.validation([...unsafe, ...problems.filter((p) => !flagged.has(p.pointer))]);
  }
  if (input.request) input.request = normalizeGenerationRequest(input.request);
  if (input.request) delete input.request.excludeDelivered;
  if (input.schedule && 'cron' in input.schedule) input.schedule = { cron: input.schedule.cron.trim(), timezone: input.schedule.timezone };
  return input;
}

/** A run's worst case must fit the monitor's cap: checked on the monitor as it will be stored. */
export function checkCreditCap(monitor: { request: GenerationRequest; maxCreditsPerRun: number | null }): void {
  if (monitor.maxCreditsPerRun === null) return;
  const worstCase = reservationFor(monitor.request.source, monitor.request.maxResults);
  if (worstCase > monitor.maxCreditsPerRun) {
    throw errors.validation([
      {
        pointer: '#/maxCreditsPerRun',
        detail: `a run of this request reserves up to ${worstCase} credits (its worst case): raise maxCreditsPerRun or lower request.maxResults`,
      },
    ]);
  }
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
