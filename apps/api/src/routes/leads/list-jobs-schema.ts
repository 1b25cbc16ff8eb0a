import Joi from 'joi';
import { ID_PATTERNS, NON_TERMINAL_STATUSES, SOURCES, TERMINAL_STATUSES } from '@leadgen/domain';
import type { ListJobsQuery } from '../../use-cases/list-jobs';
import { cursorKey, decodeCursor, oneOrMore, rfc3339 } from '../../http/paging';

export const JOBS_PAGE_DEFAULT = 20;
export const JOBS_PAGE_LIMIT = 100;

const jobsCursor = Joi.string()
  .max(512)
  .custom((value: string, helpers) => {
    const [time, id] = decodeCursor('j', value) ?? [];
    const createdAt = cursorKey.time(time);
    const key = cursorKey.text(id);
    return createdAt && key !== null ? { createdAt, id: key } : helpers.error('cursor.invalid');
  })
  .messages({ 'cursor.invalid': '{{#label}} is not a cursor of this listing (pass nextCursor back as it was given)' });

/** GET /api/v1/leads/jobs: the query of the job listing. */
export const listJobsQuerySchema = Joi.object<ListJobsQuery>({
  /** jobs per page, 1..100 (default 20) */
  limit: Joi.number().integer().min(1).max(JOBS_PAGE_LIMIT).default(JOBS_PAGE_DEFAULT),
  /** the previous page's nextCursor */
  cursor: jobsCursor,
  /** only jobs in one of these statuses (repeat the parameter or separate with commas) */
  status: oneOrMore(Joi.string().valid(...NON_TERMINAL_STATUSES, ...TERMINAL_STATUSES)),
  /** only jobs of this source */
  source: Joi.string().valid(...SOURCES),
  /** only jobs created at or after this RFC 3339 time */
  createdAfter: rfc3339,
  /** only jobs created before this RFC 3339 time */
  createdBefore: rfc3339,
  /** only the children of this batch */
  batchId: Joi.string().pattern(ID_PATTERNS.batch).messages({ 'string.pattern.base': '{{#label}} is not a batch id' }),
}).messages({ 'object.unknown': '{{#label}} is not a query parameter of this endpoint' });
