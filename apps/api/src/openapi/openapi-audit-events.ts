import { AUDIT_ACTIONS } from '@leadgen/db';
import { d, nullable, object, ref, str, time, type Schema } from './openapi-schemas';

// The audit trail (decision 019): its schemas (the path is declared in routes/account-endpoints.ts).

export const auditEventSchemas: Record<string, Schema> = {
  AuditEvent: object(
    {
      id: { type: 'string', description: 'aud_…' },
      action: {
        type: 'string',
        enum: [...AUDIT_ACTIONS],
        description: 'what was done (docs/data-protection.md lists when each is recorded)',
      },
      actor: {
        type: 'string',
        description:
          'the API key id (key_…) that did it, `operator` (the admin CLI), `subject` (a person proving control of what they objected with) or `service` (a worker applying an objection)',
      },
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
