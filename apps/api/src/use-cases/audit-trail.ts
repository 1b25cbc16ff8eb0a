import { recordAuditEvent, type AuditAction } from '@leadgen/db';
import { logger } from '@leadgen/logger';
import type { ApiDependencies } from '../dependencies';
import { auditActor } from '../http/authenticate';

/**
 * Records what a request did to its account in the audit trail (decision 019), after it was done: the
 * key that did it and the request's id come from the request. A failed write is logged, not answered:
 * the change is made already, and the client must learn that it was.
 */
export async function audit(
  deps: ApiDependencies,
  locals: Record<string, unknown>,
  accountId: string,
  action: AuditAction,
  summary: Record<string, unknown>,
): Promise<void> {
  try {
    await recordAuditEvent(deps.db, { accountId, action, summary, ...auditActor(locals) });
  } catch (error) {
    logger.error('audit event not recorded', { action, error: (error as Error).message });
  }
}
