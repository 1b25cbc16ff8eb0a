import Joi from 'joi';
import { MAX_BATCH_REQUESTS, scheduleProblems, type FieldProblem, type GenerationRequest, type MonitorSchedule } from '@leadgen/domain';
import { encodeCursor, pageCursor, pageLimit, timeAndId } from '../../http/paging';
import { generateRequestSchema, generationRequestItem } from '../leads/generate-schema';
import type { MonitorInput } from '../../use-cases/manage-monitors';
import { webhookUrl } from '../webhooks/webhooks-schema';

// /api/v1/monitors (decision 022): a generation request, or a batch of them, on a schedule.

const name = Joi.string().trim().min(1).max(200).description('Your name for the monitor, 1..200 characters');

/** the generation request each run submits, as POST /leads/generate takes it (excludeDelivered is forced) */
const request = generateRequestSchema
  .keys({
    /** always true for a monitor's runs: true or left out */
    excludeDelivered: Joi.boolean()
      .strict()
      .valid(true)
      .messages({ 'any.only': "{{#label}}: a monitor's runs always exclude delivered leads" }),
    /** set on the monitor itself, not on its request */
    webhookUrl: Joi.forbidden().messages({ 'any.unknown': '{{#label}}: set webhookUrl on the monitor, not on its request' }),
  })
  .custom(withoutExcludeDelivered);

function withoutExcludeDelivered(request: GenerationRequest): GenerationRequest {
  if (request && typeof request === 'object') delete request.excludeDelivered;
  return request;
}

/**
 * A batch monitor's request, checked as POST /leads/batches checks one, with the rules of a monitor's request
 * on top: excludeDelivered is always true, and webhookUrl belongs on the monitor (the batch's terminal event goes there).
 */
const monitorRequestRules = (raw: Record<string, unknown>): FieldProblem[] => [
  ...(raw.excludeDelivered === false ? [{ pointer: '#/excludeDelivered', detail: "a monitor's runs always exclude delivered leads" }] : []),
  ...(raw.webhookUrl !== undefined ? [{ pointer: '#/webhookUrl', detail: 'set webhookUrl on the monitor, not on its requests' }] : []),
];

/** `{ requests }`: each run is a batch of these (decision 021). */
const batch = Joi.object({
  requests: Joi.array()
    .items(generationRequestItem(MAX_BATCH_REQUESTS, monitorRequestRules).custom(withoutExcludeDelivered))
    .min(1)
    .max(MAX_BATCH_REQUESTS)
    .required()
    .description(
      'The generation requests, 1..1000, each checked as POST /leads/batches checks one (pointers `#/batch/requests/3/state`); `excludeDelivered` is forced true, and `webhookUrl` belongs on the monitor',
    ),
})
  .messages({
    'object.unknown': "{{#label}} is not a field of a monitor's batch (requests)",
    'object.base': '{{#label}} must be an object with requests (an array of generation requests)',
  })
  .description(
    "Instead of `request`: each run submits these requests as one batch (excludeDelivered forced, maxCreditsPerRun as the batch's maxCredits); in a change, it replaces the batch (a monitor of one request becomes a batch monitor)",
  )
  .meta({ 'x-component': 'MonitorBatchInput' });

/**
 * `{ every }` (ISO 8601 duration) or `{ cron, timezone }` (five fields, an IANA time zone), then the
 * schedule's own rules (a duration or cron expression this service runs, at least MONITOR_MIN_INTERVAL_MS
 * apart: the route table's context says). Documented by the hand-written MonitorSchedule (a response shape too).
 */
const schedule = Joi.object({
  every: Joi.string().max(100),
  cron: Joi.string().max(200),
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
    'schedule.invalid': '{{#label}} is not a schedule this service runs',
  })
  .custom((value: MonitorSchedule, helpers) => {
    const { minIntervalMs } = helpers.prefs.context as { minIntervalMs: number };
    const problems = scheduleProblems(value, minIntervalMs, '#');
    if (problems.length > 0) return helpers.error('schedule.invalid', { problems });
    return 'cron' in value ? { cron: value.cron.trim(), timezone: value.timezone } : value;
  })
  .meta({ 'x-component': 'MonitorSchedule' });

const maxCreditsPerRun = Joi.number().strict().integer().min(1).max(1_000_000);
const webhookUrlField = webhookUrl().description(
  "Where each run's terminal event and monitor.paused are POSTed, signed with the account's default webhook secret",
);

/** POST /api/v1/monitors */
export const createMonitorSchema = Joi.object<MonitorInput>({
  name: name.required(),
  request: request
    .optional()
    .description(
      'The generation request each run submits (or `batch`, exactly one of the two); `excludeDelivered` is forced true, and `webhookUrl` belongs on the monitor',
    ),
  batch,
  schedule: schedule.required(),
  webhookUrl: webhookUrlField,
  maxCreditsPerRun: maxCreditsPerRun.description("The most a run may reserve: the request's worst case must fit"),
  enabled: Joi.boolean().strict().description('false creates it paused; default true'),
})
  .xor('request', 'batch')
  .required()
  .messages({
    'object.unknown': '{{#label}} is not a field of a monitor',
    'object.base': 'the body must be a JSON object',
    'object.xor': 'a monitor runs either request or batch, not both',
    'object.missing': 'a monitor needs request (one generation request) or batch (an object with requests)',
  })
  .description(
    'A new monitor: exactly one of `request` and `batch`; every problem is reported at once (400 validation_failed, with JSON pointers).',
  )
  .example({
    name: 'New dentists in Austin, Mondays',
    request: { category: 'dentist', state: 'US', city: 'Austin', maxResults: 25 },
    schedule: { cron: '0 7 * * 1', timezone: 'America/Chicago' },
  })
  .meta({ 'x-component': 'MonitorInput' });

/** PATCH /api/v1/monitors/{id}: the fields to change, at least one. */
export const updateMonitorSchema = Joi.object<MonitorInput>({
  name,
  request: request.optional().description('Replaces the request (a batch monitor becomes a monitor of one request); the next run uses it'),
  batch,
  schedule: schedule.description('Replaces the schedule; the next run moves at once'),
  webhookUrl: webhookUrlField.allow(null).description('null removes it'),
  maxCreditsPerRun: maxCreditsPerRun.allow(null).description('null removes the cap'),
  enabled: Joi.boolean().strict().description('false pauses it; true resumes it (its next run is the schedule’s next time from now)'),
})
  .min(1)
  .nand('request', 'batch')
  .required()
  .messages({
    'object.unknown': '{{#label}} is not a field of a monitor',
    'object.base': 'the body must be a JSON object',
    'object.min': 'send at least one of name, request, batch, schedule, webhookUrl, maxCreditsPerRun, enabled',
    'object.nand': 'a monitor runs either request or batch, not both',
  })
  .description('The fields to change, at least one (not both request and batch); only those change.')
  .meta({ 'x-component': 'MonitorUpdate' });

export const RUNS_PAGE_DEFAULT = 20;
export const RUNS_PAGE_LIMIT = 100;

const CURSOR_KIND = 'monitor-runs';

export function runsCursor(last: { createdAt: Date; id: string }): string {
  return encodeCursor(CURSOR_KIND, [last.createdAt.toISOString(), last.id]);
}

export interface RunsQuery {
  limit: number;
  cursor?: { createdAt: Date; id: string };
}

/** GET /api/v1/monitors/{id}/runs: `limit`, `cursor` (a tampered cursor is a 400, never a 500). */
export const runsQuerySchema = Joi.object<RunsQuery>({
  limit: pageLimit('Runs per page', RUNS_PAGE_LIMIT, RUNS_PAGE_DEFAULT),
  cursor: pageCursor(CURSOR_KIND, timeAndId),
}).messages({ 'object.unknown': '{{#label}} is not a parameter of this list (limit, cursor)' });
