import Joi from 'joi';
import { AUDIT_ACTIONS } from '@leadgen/db';
import type { AuditEventsQuery } from '../../use-cases/list-audit-events';
import { pageCursor, pageLimit, timeAndId } from '../../http/paging';

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_LIMIT = 200;

/** GET /api/v1/audit-events: the query of the audit listing. */
export const auditEventsQuerySchema = Joi.object<AuditEventsQuery>({
  limit: pageLimit('Events per page', AUDIT_PAGE_LIMIT, AUDIT_PAGE_DEFAULT),
  cursor: pageCursor('a', timeAndId),
  action: Joi.string()
    .valid(...AUDIT_ACTIONS)
    .description('Only events of this action'),
}).messages({ 'object.unknown': '{{#label}} is not a query parameter of this endpoint' });
