import { AUDIT_ACTIONS } from '@leadgen/db';
import { AUDIT_PAGE_DEFAULT, AUDIT_PAGE_LIMIT } from '../routes/audit-events/audit-events-schema';
import { d, hdr, limited, nullable, object, pick, ref, str, time, type Schema } from './openapi-schemas';

// The audit trail (decision 019): its listing's path and schemas, self-contained.

export const auditEventSchemas: Record<string, Schema> = {
  AuditEvent: object(
    {
      id: { type: 'string', description: 'aud_…' },
      action: {
        type: 'string',
        enum: [...AUDIT_ACTIONS],
        description: 'what was done (docs/data-protection.md lists when each is recorded)',
      },
      actor: { type: 'string', description: 'the API key id (key_…) that did it, or `operator` (the admin CLI)' },
      requestId: { ...nullable(str), description: 'the X-Request-Id of the request that did it; null for the operator' },
      summary: { type: 'object', description: 'ids, counts and the selection of an export; never personal data nor secrets' },
      createdAt: d('When it was done', time),
    },
    undefined,
    { description: 'One entry of the append-only audit trail' },
  ),
  AuditEventPage: object(
    {
      items: { type: 'array', items: ref('AuditEvent'), description: 'newest first' },
      nextCursor: { ...nullable(str), description: 'pass it back as `cursor` for the next page; null on the last' },
    },
    undefined,
    { description: 'One page of the audit trail' },
  ),
};

export const auditEventPaths = {
  '/api/v1/audit-events': {
    get: {
      tags: ['account'],
      operationId: 'listAuditEvents',
      summary:
        "The account's audit trail, newest first: keys, webhooks, suppressions, exports, erasures, monitors (kept AUDIT_RETENTION_DAYS)",
      description:
        'Lists what was done to the account (keys issued or revoked, webhook endpoints and secrets, suppressions, exports, erasures), newest first, a page at a time. Entries are kept AUDIT_RETENTION_DAYS; they never hold personal data nor secrets.',
      parameters: [
        {
          name: 'limit',
          in: 'query',
          description: 'Events per page',
          schema: { type: 'integer', minimum: 1, maximum: AUDIT_PAGE_LIMIT, default: AUDIT_PAGE_DEFAULT },
        },
        { name: 'cursor', in: 'query', description: "The previous page's `nextCursor` (opaque)", schema: str },
        { name: 'action', in: 'query', description: 'Only events of this action', schema: { type: 'string', enum: [...AUDIT_ACTIONS] } },
      ],
      responses: {
        200: {
          description: 'A page of events',
          headers: { ...limited, Link: hdr('Link') },
          content: { 'application/json': { schema: ref('AuditEventPage') } },
        },
        ...pick(400, 401, 405, 429, 500, 503),
      },
    },
  },
};
