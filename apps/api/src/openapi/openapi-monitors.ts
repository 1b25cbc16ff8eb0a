import { BATCH_STATUSES, MONITOR_PAUSE_REASONS, MONITOR_PAUSED_EVENT, NON_TERMINAL_STATUSES, TERMINAL_STATUSES } from '@leadgen/domain';
import { type Schema, d, int, nullable, object, ref, str, time } from './openapi-schemas';

// Monitors (decision 022): their schemas and the monitor.paused event (the paths are declared in
// routes/monitors/monitors-endpoints.ts).

const json = (schema: Schema) => ({ 'application/json': { schema } });
const statuses = { type: 'string', enum: [...NON_TERMINAL_STATUSES, ...TERMINAL_STATUSES] };

const pausedReason = {
  ...nullable({ type: 'string', enum: [...MONITOR_PAUSE_REASONS] }),
  description:
    'Why it is not running: `owner` (you paused it), `operator`, or the service paused it: `insufficient_credits` (a tick could not reserve its run) or `consecutive_failures` (MONITOR_PAUSE_AFTER_FAILURES runs in a row FAILED). Null while enabled',
};

export const monitorSchemas: Record<string, Schema> = {
  MonitorSchedule: {
    description:
      'Elapsed time (`every`, an ISO 8601 duration of weeks, days, hours, minutes, seconds) or wall-clock time (`cron`, five fields, read in the IANA `timezone`). Runs are at least MONITOR_MIN_INTERVAL_MS apart (1 hour by default).',
    oneOf: [
      object({ every: d('An ISO 8601 duration such as PT6H or P1D', { type: 'string', example: 'PT6H' }) }, ['every'], {
        title: 'EverySchedule',
      }),
      object(
        {
          cron: d('Five fields: minute hour day-of-month month day-of-week', { type: 'string', example: '0 7 * * 1' }),
          timezone: d('An IANA time zone the expression is read in', { type: 'string', example: 'Europe/Berlin' }),
        },
        ['cron', 'timezone'],
        { title: 'CronSchedule' },
      ),
    ],
  },
  MonitorBatch: object(
    { requests: { type: 'array', items: ref('GenerationRequest'), description: 'The normalised requests of each run’s batch' } },
    ['requests'],
    { description: "A batch monitor's requests" },
  ),
  Monitor: object(
    {
      monitorId: d('The monitor id (`mon_…`)', str),
      name: d('Its name', str),
      request: {
        ...nullable(ref('GenerationRequest')),
        description: 'The normalised request each run submits (with excludeDelivered forced); null for a batch monitor',
      },
      batch: { ...nullable(ref('MonitorBatch')), description: 'What each run submits as one batch; null for a monitor of one request' },
      schedule: ref('MonitorSchedule'),
      webhookUrl: d("Where its runs' events go", nullable(str)),
      maxCreditsPerRun: d('The cap on a run’s reservation', nullable(int(1))),
      enabled: d('Whether ticks run', { type: 'boolean' }),
      pausedReason,
      nextRunAt: d('When the next tick is due; null while paused', nullable(time)),
      lastRun: d(
        'Its newest run or skipped tick',
        nullable(
          object({
            runId: d('The run id (`mrun_…`)', str),
            jobId: d('The run’s job; null for a skipped tick and a batch monitor’s run', nullable(str)),
            batchId: d('A batch monitor’s run: its batch; null otherwise', nullable(str)),
            status: d('The job’s status, or the batch’s (`running` until every child ended)', nullable(statuses)),
            deliveredCount: d('New leads it delivered so far (a batch: summed over its children)', nullable(int())),
            skipReason: d('Why the tick made no job: `overlap`, `insufficient_credits`, `consecutive_failures`', nullable(str)),
            scheduledFor: d('The due time of the tick; null for a run asked for', nullable(time)),
            createdAt: d('When it happened', time),
          }),
        ),
      ),
      createdAt: d('When it was created', time),
      updatedAt: d('When it last changed (a tick moves nextRunAt too)', time),
    },
    undefined,
    { description: 'A generation request run on a schedule; each run delivers and bills only leads the account never had' },
  ),
  MonitorList: object({ items: { type: 'array', items: ref('Monitor'), description: 'newest first' } }, undefined, {
    description: "The account's monitors (at most MONITOR_MAX_PER_ACCOUNT)",
  }),
  MonitorRun: object(
    {
      runId: d('The run id (`mrun_…`)', str),
      monitorId: d('Its monitor', str),
      kind: d('`scheduled` (a tick) or `manual` (POST …/run)', { type: 'string', enum: ['scheduled', 'manual'] }),
      scheduledFor: d('The tick’s due time; null for a manual run', nullable(time)),
      createdAt: d('When it ran', time),
      skipReason: d(
        'Why no job (or batch) was made: `overlap` (the previous run was still going), `insufficient_credits`, `consecutive_failures`',
        nullable(str),
      ),
      job: d(
        'The run’s job, with its counts; null when the tick was skipped',
        nullable(
          object({
            jobId: d('The job id', str),
            pollUrl: d('Where to read it', str),
            status: d('Its status', statuses),
            requestedCount: d('maxResults', int(1)),
            deliveredCount: d('New leads delivered (and billed)', int()),
            skippedAlreadyDelivered: d('Leads passed over because the account already had them (not billed)', int()),
            creditsCharged: d('Charged once terminal (0 for a run that found nothing new)', nullable(int())),
            finishedAt: d('When it ended', nullable(time)),
          }),
        ),
      ),
      batch: d(
        'A batch monitor’s run: its batch, with its children’s counts summed; null otherwise',
        nullable(
          object({
            batchId: d('The batch id', str),
            pollUrl: d('Where to read it', str),
            status: d('Its status: running until every child ended', { type: 'string', enum: [...BATCH_STATUSES] }),
            childCount: d('Its children (one job per request)', int(1)),
            requestedCount: d("The sum of its children's maxResults", int(1)),
            deliveredCount: d('New leads delivered (and billed), summed over its children', int()),
            skippedAlreadyDelivered: d('Leads passed over because the account (or the batch) already had them, summed', int()),
            creditsCharged: d('Charged once terminal (0 for a run that found nothing new)', nullable(int())),
            finishedAt: d('When its last child ended', nullable(time)),
          }),
        ),
      ),
    },
    undefined,
    { description: 'A tick of the schedule or a run asked for' },
  ),
  MonitorRunPage: object(
    {
      items: { type: 'array', items: ref('MonitorRun'), description: 'newest first' },
      nextCursor: { ...nullable(str), description: 'pass it back as `cursor` for the next page; null on the last' },
    },
    undefined,
    { description: "One page of a monitor's runs" },
  ),
  MonitorPausedData: object(
    {
      monitorId: d('The monitor', str),
      name: d('Its name', str),
      reason: d('Why the service paused it', { type: 'string', enum: ['insufficient_credits', 'consecutive_failures'] }),
      pausedAt: d('When', time),
    },
    undefined,
    { description: 'A monitor the service paused; PATCH it with enabled: true to resume' },
  ),
};

export const monitorEvents = (signatureHeaders: unknown[], received: Record<string, unknown>) => ({
  [MONITOR_PAUSED_EVENT]: {
    post: {
      tags: ['webhooks'],
      operationId: 'event_monitor_paused',
      summary: 'The service paused a monitor',
      description:
        "Sent to the monitor's webhookUrl (and endpoints subscribed to monitor.paused) when the service pauses a monitor: the account could not cover a run, or MONITOR_PAUSE_AFTER_FAILURES runs in a row FAILED.",
      security: [],
      parameters: signatureHeaders,
      requestBody: {
        required: true,
        content: json(
          object({
            type: d('The event type', { const: MONITOR_PAUSED_EVENT }),
            timestamp: d('When the monitor was paused', time),
            data: ref('MonitorPausedData'),
          }),
        ),
      },
      responses: received,
    },
  },
});
