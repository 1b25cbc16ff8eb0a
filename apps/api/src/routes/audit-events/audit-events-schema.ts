import Joi from 'joi';
import { AUDIT_ACTIONS } from '@leadgen/db';
import type { AuditEventsQuery } from '../../use-cases/list-audit-events';
import { cursorKey, decodeCursor } from '../../http/paging';

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_LIMIT = 200;

const auditCursor = Joi.string()
  .max(512)
  .custom((value: string, helpers) => {
    const [time, id] = decodeCursor('a', value) ?? [];
    const createdAt = cursorKey.time(time);
    const key = cursorKey.text(id);
    return createdAt && key !== null ? { createdAt, id: key } : helpers.error('cursor.invalid');
  })
  .messages({ 'cursor.invalid': '{{#label}} is not a cursor of this listing (pass nextCursor back as it was given)' });

/** GET /api/v1/audit-events: the query of the audit listing. */
export const auditEventsQuerySchema = Joi.object<AuditEventsQuery>({
  /** events per page, 1..200 (default 50) */
  limit: Joi.number().integer().min(1).max(AUDIT_PAGE_LIMIT).default(AUDIT_PAGE_DEFAULT),
  /** the previous page's nextCursor */
  cursor: auditCursor,
  /** only events of this action */
  action: Joi.string().valid(...AUDIT_ACTIONS),
}).messages({ 'object.unknown': '{{#label}} is not a query parameter of this endpoint' });
