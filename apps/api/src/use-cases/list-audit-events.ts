import { listAuditEvents } from '@leadgen/db';
import type { ApiDependencies } from '../dependencies';
import { encodeCursor } from '../http/paging';
import { presentAuditEvent } from '../presenters/audit-event-presenter';
import type { AuditEventsQuery } from '../routes/audit-events/audit-events-schema';

export interface AuditEventsPage {
  items: Array<ReturnType<typeof presentAuditEvent>>;
  nextCursor: string | null;
}

/** One page of the account's audit events, newest first, and the cursor of the next. */
export async function listAccountAuditEvents(deps: ApiDependencies, accountId: string, query: AuditEventsQuery): Promise<AuditEventsPage> {
  // One more than asked: whether a next page exists is known without a second query.
  const events = await listAuditEvents(deps.db, accountId, { action: query.action ?? null }, query.cursor ?? null, query.limit + 1);
  const page = events.slice(0, query.limit);
  const last = page.at(-1);
  return {
    items: page.map(presentAuditEvent),
    nextCursor: events.length > query.limit && last ? encodeCursor('a', [last.createdAt.toISOString(), last.id]) : null,
  };
}
