import { listAuditEvents, type AuditAction } from '@leadgen/db';
import type { ApiDependencies } from '../dependencies';
import { encodeCursor } from '../http/paging';
import { presentAuditEvent } from '../presenters/audit-event-presenter';

/** What the audit listing takes (GET /api/v1/audit-events validates its query into this). */
export interface AuditEventsQuery {
  limit: number;
  cursor?: { createdAt: Date; id: string };
  action?: AuditAction;
}

export interface AuditEventsPage {
  items: Array<ReturnType<typeof presentAuditEvent>>;
  nextCursor: string | null;
}

/** One page of the account's audit events, newest first, and the cursor of the next. */
export async function listAccountAuditEvents(deps: ApiDependencies, accountId: string, query: AuditEventsQuery): Promise<AuditEventsPage> {
  // One more than asked: whether a next page exists is known without a second query.
  const events = await listAuditEvents(deps.db.reads, accountId, { action: query.action ?? null }, query.cursor ?? null, query.limit + 1);
  const page = events.slice(0, query.limit);
  const last = page.at(-1);
  return {
    items: page.map(presentAuditEvent),
    nextCursor: events.length > query.limit && last ? encodeCursor('a', [last.createdAt.toISOString(), last.id]) : null,
  };
}
