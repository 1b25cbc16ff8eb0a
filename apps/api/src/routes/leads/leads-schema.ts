import Joi from 'joi';
import { ID_PATTERNS, SOURCES, type Source } from '@leadgen/domain';
import { cursorKey, pageCursor, pageLimit, rfc3339Bound } from '../../http/paging';

export const LEADS_PAGE_DEFAULT = 100;
export const LEADS_PAGE_LIMIT = 1000;
export const EXPORT_FORMATS = ['json', 'csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const position = (keys: unknown[]) => cursorKey.int(keys[0]);
const leadKeyset = ([time, jobId, at]: unknown[]) => {
  const jobCreatedAt = cursorKey.time(time);
  const id = cursorKey.text(jobId);
  const after = cursorKey.int(at);
  return jobCreatedAt && id !== null && after !== null ? { jobCreatedAt, jobId: id, position: after } : null;
};

/** `limit` of a listing of leads: its JSON page's (a download streams the whole selection). */
export const leadsLimit = pageLimit('Leads per JSON page (CSV and JSON Lines stream everything)', LEADS_PAGE_LIMIT, LEADS_PAGE_DEFAULT);

/**
 * `format`: the older way to ask a JSON path for a download, kept for earlier clients. Declared as a parameter
 * only: a `text/csv` alternative in the JSON operation's answer would make generators (openapi-fetch) type
 * every page as `Page | string`. No Joi default: without it, `Accept` chooses.
 */
export const legacyFormat = Joi.string()
  .valid(...EXPORT_FORMATS)
  .description(
    'json (the default) answers this page; `csv` or `jsonl` answer exactly as the `.csv` / `.jsonl` operation (text/csv, application/x-ndjson), as does `Accept: text/csv` or `Accept: application/x-ndjson` (or `application/jsonl`) without this parameter. New code should call those operations.',
  );

const notAParameter = { 'object.unknown': '{{#label}} is not a query parameter of this endpoint' };

/** GET /api/v1/leads/jobs/{jobId}/leads and /api/v1/leads/result-sets/{id}: one result set's leads. */
export const resultSetQuerySchema = Joi.object<ResultSetQuery>({
  limit: leadsLimit,
  cursor: pageCursor('p', position),
  format: legacyFormat,
}).messages(notAParameter);

/** GET /api/v1/leads: every lead delivered to the account. */
export const accountLeadsQuerySchema = Joi.object<AccountLeadsQuery>({
  limit: leadsLimit,
  cursor: pageCursor('l', leadKeyset),
  source: Joi.string()
    .valid(...SOURCES)
    .description('Only leads of jobs of this source'),
  jobId: Joi.string()
    .pattern(ID_PATTERNS.job)
    .messages({ 'string.pattern.base': '{{#label}} is not a job id' })
    .description('Only leads of this job'),
  createdAfter: rfc3339Bound('Leads of jobs created at or after'),
  createdBefore: rfc3339Bound('Leads of jobs created before'),
  format: legacyFormat,
}).messages(notAParameter);

export interface ResultSetQuery {
  limit: number;
  format?: ExportFormat;
  cursor?: number;
}

export interface AccountLeadsQuery {
  limit: number;
  format?: ExportFormat;
  cursor?: { jobCreatedAt: Date; jobId: string; position: number };
  source?: Source;
  jobId?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}
