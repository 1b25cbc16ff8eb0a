import Joi from 'joi';
import { ID_PATTERNS, NON_TERMINAL_STATUSES, SOURCES, TERMINAL_STATUSES } from '@leadgen/domain';
import type { ListJobsQuery } from '../../use-cases/list-jobs';
import { oneOrMore, pageCursor, pageLimit, rfc3339Bound, timeAndId } from '../../http/paging';

export const JOBS_PAGE_DEFAULT = 20;
export const JOBS_PAGE_LIMIT = 100;

/** GET /api/v1/leads/jobs: the query of the job listing. */
export const listJobsQuerySchema = Joi.object<ListJobsQuery>({
  limit: pageLimit('Jobs per page', JOBS_PAGE_LIMIT, JOBS_PAGE_DEFAULT),
  cursor: pageCursor('j', timeAndId),
  // Declared as the comma list docs/api.md shows; the API parses a repeated parameter the same way.
  status: oneOrMore(Joi.string().valid(...NON_TERMINAL_STATUSES, ...TERMINAL_STATUSES)).description(
    'One or more statuses as a comma list (`status=COMPLETE,PARTIAL`); repeating the parameter (`status=COMPLETE&status=PARTIAL`) is accepted too',
  ),
  source: Joi.string()
    .valid(...SOURCES)
    .description('Only jobs of this source'),
  createdAfter: rfc3339Bound('Jobs created at or after'),
  createdBefore: rfc3339Bound('Jobs created before'),
  batchId: Joi.string()
    .pattern(ID_PATTERNS.batch)
    .messages({ 'string.pattern.base': '{{#label}} is not a batch id' })
    .description('Only the children of this batch (`bat_…`)'),
}).messages({ 'object.unknown': '{{#label}} is not a query parameter of this endpoint' });
