import Joi from 'joi';
import { ID_PATTERNS, SOURCES, type Source } from '@leadgen/domain';
import { cursorKey, decodeCursor, rfc3339 } from '../../http/paging';

export const LEADS_PAGE_DEFAULT = 100;
export const LEADS_PAGE_LIMIT = 1000;
export const EXPORT_FORMATS = ['json', 'csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const cursor = (kind: string, read: (keys: unknown[]) => unknown) =>
  Joi.string()
    .max(512)
    .custom((value: string, helpers) => {
      const keys = decodeCursor(kind, value);
      const parsed = keys ? read(keys) : null;
      return parsed ?? helpers.error('cursor.invalid');
    })
    .messages({ 'cursor.invalid': '{{#label}} is not a cursor of this listing (pass nextCursor back as it was given)' });

const position = (keys: unknown[]) => cursorKey.int(keys[0]);
const leadKeyset = ([time, jobId, at]: unknown[]) => {
  const jobCreatedAt = cursorKey.time(time);
  const id = cursorKey.text(jobId);
  const after = cursorKey.int(at);
  return jobCreatedAt && id !== null && after !== null ? { jobCreatedAt, jobId: id, position: after } : null;
};

const common = {
  /** leads per page of the JSON answer, 1..1000 (default 100); CSV and JSON Lines stream the whole selection */
  limit: Joi.number().integer().min(1).max(LEADS_PAGE_LIMIT).default(LEADS_PAGE_DEFAULT),
  /** json (default), csv or jsonl; overrides Accept */
  format: Joi.string().valid(...EXPORT_FORMATS),
};

/** GET /api/v1/leads/jobs/{jobId}/leads and /api/v1/leads/result-sets/{id}: one result set's leads. */
export const resultSetQuerySchema = Joi.object<ResultSetQuery>({
  ...common,
  /** the previous page's nextCursor */
  cursor: cursor('p', position),
}).messages({ 'object.unknown': '{{#label}} is not a query parameter of this endpoint' });

/** GET /api/v1/leads: every lead delivered to the account. */
export const accountLeadsQuerySchema = Joi.object<AccountLeadsQuery>({
  ...common,
  /** the previous page's nextCursor */
  cursor: cursor('l', leadKeyset),
  /** only leads of jobs of this source */
  source: Joi.string().valid(...SOURCES),
  /** only leads of this job */
  jobId: Joi.string().pattern(ID_PATTERNS.job).messages({ 'string.pattern.base': '{{#label}} is not a job id' }),
  /** only leads of jobs created at or after this RFC 3339 time */
  createdAfter: rfc3339,
  /** only leads of jobs created before this RFC 3339 time */
  createdBefore: rfc3339,
}).messages({ 'object.unknown': '{{#label}} is not a query parameter of this endpoint' });

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
