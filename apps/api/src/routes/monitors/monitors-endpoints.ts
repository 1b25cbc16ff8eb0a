import { JSON_BODY_LIMIT_BYTES } from '@leadgen/config';
import type { Endpoint } from '../../http/route-table';
import { deletedAnswer, hdr, idempotencyKeyParam, jsonAnswer, pick, problemResponse, ref } from '../../openapi/openapi-schemas';
import { monitorPath } from '../path-params';
import { createMonitorSchema, runsQuerySchema, updateMonitorSchema } from './monitors-schema';
import {
  createMonitorRoute,
  deleteMonitorRoute,
  getMonitorRoute,
  listMonitorsRoute,
  listRunsRoute,
  runMonitorRoute,
  updateMonitorRoute,
} from './monitors-route';

// The monitor endpoints under /api/v1 (decision 022): a generation request on a schedule. A run asked for
// takes the `generate` rate limit, as a generate does.

const answer = jsonAnswer;
const notFound = problemResponse("monitor_not_found (also another account's monitor)");
export const monitorEndpoints: Endpoint[] = [
  {
    method: 'post',
    path: '/api/v1/monitors',
    auth: 'key',
    scope: 'monitors',
    rateLimit: { policy: 'read' },
    body: { limitBytes: JSON_BODY_LIMIT_BYTES },
    request: { body: createMonitorSchema },
    handler: createMonitorRoute,
    operation: {
      tags: ['monitors'],
      operationId: 'createMonitor',
      summary: 'Run a generation request on a schedule, delivering only new leads',
      description:
        'Creates a monitor: each tick of its schedule submits its request as a job (a batch monitor: its requests as one batch) with excludeDelivered forced, so a run delivers and bills only leads the account never received; a run that finds nothing new is EMPTY and costs nothing. At most MONITOR_MAX_PER_ACCOUNT per account (409 monitor_limit).',
      responses: {
        201: answer('The monitor, with its first nextRunAt', ref('Monitor'), { Location: hdr('Location') }),
        409: problemResponse('monitor_limit (with `limit`)'),
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/monitors',
    auth: 'key',
    scope: 'read',
    rateLimit: { policy: 'read' },
    handler: listMonitorsRoute,
    operation: {
      tags: ['monitors'],
      operationId: 'listMonitors',
      summary: "The account's monitors, newest first",
      description: 'Every monitor of the account (at most MONITOR_MAX_PER_ACCOUNT, so one page), each with its next run and last run.',
      responses: { 200: answer('The monitors', ref('MonitorList')) },
    },
  },
  {
    method: 'get',
    path: '/api/v1/monitors/{id}',
    auth: 'key',
    scope: 'read',
    rateLimit: { policy: 'read' },
    request: { params: monitorPath },
    handler: getMonitorRoute,
    operation: {
      tags: ['monitors'],
      operationId: 'getMonitor',
      summary: 'A monitor: its next run, its last run, why it is paused',
      description: "One monitor of the account; another account's answers 404 as one that does not exist.",
      responses: { 200: answer('The monitor', ref('Monitor')), 404: notFound },
    },
  },
  {
    method: 'patch',
    path: '/api/v1/monitors/{id}',
    auth: 'key',
    scope: 'monitors',
    rateLimit: { policy: 'read' },
    body: { limitBytes: JSON_BODY_LIMIT_BYTES },
    request: { params: monitorPath, body: updateMonitorSchema },
    handler: updateMonitorRoute,
    operation: {
      tags: ['monitors'],
      operationId: 'updateMonitor',
      summary: 'Change a monitor; pause it (enabled: false) or resume it',
      description:
        'Changes the fields sent. A new schedule or a resume moves the next run at once to the schedule’s next time from now; a pause clears it.',
      responses: { 200: answer('The monitor', ref('Monitor')), 404: notFound },
    },
  },
  {
    method: 'delete',
    path: '/api/v1/monitors/{id}',
    auth: 'key',
    scope: 'monitors',
    rateLimit: { policy: 'read' },
    request: { params: monitorPath },
    handler: deleteMonitorRoute,
    operation: {
      tags: ['monitors'],
      operationId: 'deleteMonitor',
      summary: 'Delete a monitor; its runs stay readable',
      description: 'No tick runs after this. Its runs (jobs) stay readable, and GET …/runs still lists them.',
      responses: { 204: deletedAnswer, 404: notFound },
    },
  },
  {
    method: 'post',
    path: '/api/v1/monitors/{id}/run',
    auth: 'key',
    scope: 'monitors',
    rateLimit: { policy: 'generate', weight: '1: a run asked for counts as a generate call' },
    request: { params: monitorPath },
    handler: runMonitorRoute,
    operation: {
      tags: ['monitors'],
      operationId: 'runMonitor',
      summary: 'Run a monitor now, once (idempotent per Idempotency-Key)',
      description:
        'Submits one run now, whatever the schedule (a paused monitor too); the schedule does not move. The same Idempotency-Key answers the same run again (`Idempotent-Replayed: true`). A run still going: 409 monitor_run_in_progress.',
      parameters: [idempotencyKeyParam('')],
      responses: {
        202: answer(
          'The run’s job, under way (poll `Location`); a batch monitor’s run is a batch, answered with the batch body',
          { oneOf: [ref('JobSummary'), ref('Batch')] },
          { Location: hdr('Location'), 'Idempotent-Replayed': hdr('Idempotent-Replayed') },
        ),
        404: notFound,
        409: problemResponse('monitor_run_in_progress (with `jobId`, or `batchId` for a batch monitor)'),
        ...pick(400, 402, 422),
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/monitors/{id}/runs',
    auth: 'key',
    scope: 'read',
    rateLimit: { policy: 'read' },
    request: { params: monitorPath, query: runsQuerySchema },
    handler: listRunsRoute,
    operation: {
      tags: ['monitors'],
      operationId: 'listMonitorRuns',
      summary: "A monitor's runs and skipped ticks, newest first, with their counts",
      description:
        'Each tick (skipped ones with why) and each run asked for, newest first: new leads delivered, leads skipped as already delivered, credits charged (a batch monitor’s run: its batch, summed over its children). A deleted monitor’s runs stay listed.',
      responses: {
        200: answer('A page of runs', ref('MonitorRunPage'), { Link: hdr('Link') }),
        404: notFound,
      },
    },
  },
];
