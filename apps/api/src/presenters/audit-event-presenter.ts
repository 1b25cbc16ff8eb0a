import type { AuditEventRecord } from '@leadgen/db';

/** An audit event as GET /api/v1/audit-events shows it. */
export function presentAuditEvent(event: AuditEventRecord) {
  return {
    id: event.id,
    action: event.action,
    actor: event.actor,
    requestId: event.requestId,
    summary: event.summary,
    createdAt: event.createdAt.toISOString(),
  };
}
