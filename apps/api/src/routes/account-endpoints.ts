import { SUPPRESSION_UPLOAD_LIMIT } from '@leadgen/domain';
import type { Endpoint } from '../http/route-table';
import { d, int, limited, nullable, object, pageAnswer, problemResponse, ref, str, time } from '../openapi/openapi-schemas';
import { accountRoute } from './account-route';
import { auditEventsRoute } from './audit-events/audit-events-route';
import { auditEventsQuerySchema } from './audit-events/audit-events-schema';
import { deleteSuppressionsRoute, getSuppressionsRoute, putSuppressionsRoute } from './suppressions/suppressions-route';
import { SUPPRESSION_PROBLEMS_LISTED, suppressionsBodySchema, suppressionsQuerySchema } from './suppressions/suppressions-schema';

// The account: its credits, its suppression list, its audit trail (decision 019).

// An upload of 100,000 entries is a few MiB: these routes alone take bodies that large. Counted from the
// bytes before parsing: a body over the entry limit is never parsed nor normalised (the lists' commas,
// plus the two between the lists).
const suppressionsBody = { limitBytes: 8 * 1024 * 1024, maxEntries: SUPPRESSION_UPLOAD_LIMIT + 2 };
const suppressionCounts = d(
  'How many entries of each kind the list holds',
  object({ domain: d('Domains', int()), email: d('Emails', int()), phone: d('Phones', int()) }),
);
// PUT and DELETE take the same body and weigh the same.
const suppressionsChange = {
  rateLimit: {
    policy: 'read',
    weight: '1 + 1 per 100 entries sent (ROWS_PER_UNIT), refused before the work when the window would pass its limit',
  },
  body: suppressionsBody,
  request: { body: suppressionsBodySchema, maxProblems: SUPPRESSION_PROBLEMS_LISTED },
} as const;

export const accountEndpoints: Endpoint[] = [
  {
    method: 'get',
    path: '/api/v1/account',
    auth: 'key',
    scope: 'read',
    rateLimit: { policy: 'read' },
    handler: accountRoute,
    operation: {
      tags: ['account'],
      operationId: 'getAccount',
      summary: 'The account and its credits',
      description: "The account's name and credits: the balance, what open jobs hold, and what a new job may reserve.",
      responses: {
        200: {
          description: 'Credits: balance (granted − charged), reserved by open jobs, available',
          headers: limited,
          content: {
            'application/json': {
              schema: object({
                accountId: d('The account id', str),
                name: d("The account's name", str),
                mode: d(
                  'live, or test for a test key: its test account (its own jobs, leads, webhooks, monitors, suppressions and test credits; decision 036)',
                  { type: 'string', enum: ['live', 'test'] },
                ),
                credits: d(
                  "The account's credits",
                  object({
                    balance: d('Granted minus charged', { type: 'integer' }),
                    reserved: d('Held by open jobs', int()),
                    available: d('What a new job may reserve: balance minus reserved', { type: 'integer' }),
                  }),
                ),
              }),
            },
          },
        },
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/suppressions',
    auth: 'key',
    scope: 'read',
    rateLimit: { policy: 'read' },
    request: { query: suppressionsQuerySchema },
    handler: getSuppressionsRoute,
    operation: {
      tags: ['account'],
      operationId: 'listSuppressions',
      summary: 'The suppression list: counts, and entries in (kind, value) order',
      description: "A page of the account's suppression entries, with the count of each kind.",
      responses: {
        200: {
          description: 'A page of entries',
          headers: limited,
          content: {
            'application/json': {
              schema: object({
                counts: suppressionCounts,
                items: d("The page's entries", {
                  type: 'array',
                  items: object({
                    kind: d('What the value is', { type: 'string', enum: ['domain', 'email', 'phone'] }),
                    value: d('The normalised value', str),
                    createdAt: d('When it was added', time),
                  }),
                }),
                nextCursor: d('Pass as `cursor` for the next page; null on the last', nullable(str)),
              }),
            },
          },
        },
      },
    },
  },
  {
    method: 'put',
    path: '/api/v1/suppressions',
    auth: 'key',
    scope: 'suppressions',
    ...suppressionsChange,
    handler: putSuppressionsRoute,
    operation: {
      tags: ['account'],
      operationId: 'addSuppressions',
      summary: 'Adds entries: a lead matching one is never delivered nor billed, in any job (decision 014)',
      description:
        "Adds domains, emails and phones to the suppression list (normalised; entries already there are not counted again). Up to 100,000 entries a call, and up to the deployment's cap per account (1,000,000 by default); each 100 entries count as one more call in the `read` rate limit. All or nothing. An account's uploads and removals are taken one at a time: another sent while one is at work is answered 429 before its body is read.",
      responses: {
        200: {
          description: 'How many were new, and the totals',
          headers: limited,
          content: { 'application/json': { schema: object({ added: d('Entries that were new', int()), counts: suppressionCounts }) } },
        },
        409: problemResponse('suppression_limit: the account would hold more entries than SUPPRESSIONS_MAX_PER_ACCOUNT (`limit`, `held`)'),
      },
    },
  },
  {
    method: 'delete',
    path: '/api/v1/suppressions',
    auth: 'key',
    scope: 'suppressions',
    ...suppressionsChange,
    handler: deleteSuppressionsRoute,
    operation: {
      tags: ['account'],
      operationId: 'removeSuppressions',
      summary: 'Removes the entries sent',
      description:
        'Removes the entries sent from the suppression list; entries that were not there are ignored. All or nothing; one upload or removal of an account at a time (another answers 429).',
      responses: {
        200: {
          description: 'How many there were, and the totals',
          headers: limited,
          content: {
            'application/json': { schema: object({ removed: d('Entries that were there', int()), counts: suppressionCounts }) },
          },
        },
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/audit-events',
    auth: 'key',
    scope: 'read',
    rateLimit: { policy: 'read' },
    request: { query: auditEventsQuerySchema },
    handler: auditEventsRoute,
    operation: {
      tags: ['account'],
      operationId: 'listAuditEvents',
      summary:
        "The account's audit trail, newest first: keys, webhooks, suppressions, exports, erasures, monitors (kept AUDIT_RETENTION_DAYS)",
      description:
        'Lists what was done to the account (keys issued or revoked, webhook endpoints and secrets, suppressions, exports, erasures), newest first, a page at a time. Entries are kept AUDIT_RETENTION_DAYS; they never hold personal data nor secrets.',
      responses: {
        200: pageAnswer('A page of events', ref('AuditEventPage')),
      },
    },
  },
];
