import { JSON_BODY_LIMIT_BYTES } from '@leadgen/config';
import type { Endpoint } from '../../http/route-table';
import { hdr, idempotencyKeyParam, limited, listPage, pageAnswer, pick, ref, str } from '../../openapi/openapi-schemas';
import { jobPath } from '../path-params';
import { generateRequestSchema } from './generate-schema';
import { generateRoute } from './generate-route';
import { cancelJobRoute, getJobRoute } from './jobs-route';
import { listJobsRoute } from './list-jobs-route';
import { listJobsQuerySchema } from './list-jobs-schema';

// Starting a job, following it, cancelling it, listing the account's jobs (their leads are in
// lead-listing-endpoints.ts).

const jobAnswer = {
  description: 'The job body; `terminal` and `leads` exactly when the status is terminal, `Retry-After` while it is not',
  headers: { ...limited, 'Retry-After': hdr('Retry-After') },
  content: { 'application/json': { schema: ref('Job') } },
};
export const jobEndpoints: Endpoint[] = [
  {
    method: 'post',
    path: '/api/v1/leads/generate',
    auth: 'key',
    scope: 'generate',
    rateLimit: { policy: 'generate' },
    body: { limitBytes: JSON_BODY_LIMIT_BYTES },
    request: { body: generateRequestSchema },
    handler: generateRoute,
    operation: {
      tags: ['jobs'],
      operationId: 'generateLeads',
      summary: 'Start a job, waiting briefly for its end',
      description:
        'Reserves the credits and queues the job. With `Prefer: wait=N` (default 10 s, at most 60) the answer waits for the end: 200 with the terminal job, or 202 with where to poll. The same `Idempotency-Key` with the same body answers the first call again (`Idempotent-Replayed: true`); with another body, 422.',
      parameters: [
        idempotencyKeyParam(),
        { name: 'Prefer', in: 'header', description: '`wait=N` (seconds, 0..60) or `respond-async`', schema: str },
      ],
      responses: {
        200: {
          ...jobAnswer,
          description: 'The job ended within the wait: the terminal job body',
          headers: { ...limited, 'Idempotent-Replayed': hdr('Idempotent-Replayed'), 'Preference-Applied': hdr('Preference-Applied') },
        },
        202: {
          description: 'Still under way: poll `Location` after `Retry-After`',
          headers: {
            ...limited,
            Location: hdr('Location'),
            'Retry-After': hdr('Retry-After'),
            'Idempotent-Replayed': hdr('Idempotent-Replayed'),
            'Preference-Applied': hdr('Preference-Applied'),
          },
          content: { 'application/json': { schema: ref('Accepted') } },
        },
        ...pick(402, 422),
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/leads/jobs',
    auth: 'key',
    scope: 'read',
    rateLimit: { policy: 'read' },
    request: { query: listJobsQuerySchema },
    handler: listJobsRoute,
    operation: {
      tags: ['jobs'],
      operationId: 'listJobs',
      summary: "The account's jobs, newest first",
      description: "A page of the account's jobs, newest first, each without `leads`; follow `nextCursor` (or `Link`) for the next page.",
      responses: {
        200: pageAnswer('A page of job bodies without `leads`', listPage("The page's jobs", 'JobSummary')),
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/leads/jobs/{jobId}',
    auth: 'key',
    scope: 'read',
    rateLimit: { policy: 'read' },
    request: { params: jobPath },
    handler: getJobRoute,
    operation: {
      tags: ['jobs'],
      operationId: 'getJob',
      summary: 'The job',
      description:
        'The job body. While it is queued or running, poll again after `Retry-After`; once terminal it never changes and carries `terminal` and `leads`.',
      responses: { 200: jobAnswer, ...pick(400, 404) },
    },
  },
  {
    method: 'delete',
    path: '/api/v1/leads/jobs/{jobId}',
    auth: 'key',
    scope: 'generate',
    rateLimit: { policy: 'read' },
    request: { params: jobPath },
    handler: cancelJobRoute,
    operation: {
      tags: ['jobs'],
      operationId: 'cancelJob',
      summary: 'Cancel a queued or running job (idempotent)',
      description:
        'Stops the job: it settles CANCELLED, keeping and charging the leads delivered so far. Cancelling a cancelled job answers it again; any other terminal job is 409.',
      responses: { 200: { ...jobAnswer, description: 'The job, now CANCELLED' }, ...pick(400, 404, 409) },
    },
  },
];
