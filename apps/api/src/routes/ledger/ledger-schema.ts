import Joi from 'joi';
import { cursorKey, encodeCursor, pageCursor, pageLimit, rfc3339 } from '../../http/paging';

export const LEDGER_PAGE_DEFAULT = 100;
export const LEDGER_PAGE_LIMIT = 1000;
/** The longest span GET /account/usage answers for at once. */
export const USAGE_MAX_DAYS = 366;
export const USAGE_DEFAULT_DAYS = 30;

/** GET /api/v1/account/ledger (and .csv, which streams the whole selection: ledger-endpoints.ts ignores its `limit`). */
export const ledgerQuerySchema = Joi.object({
  limit: pageLimit('Rows per page', LEDGER_PAGE_LIMIT, LEDGER_PAGE_DEFAULT),
  // Ledger ids are bigint; a cursor's stays within what JavaScript and the column both hold.
  cursor: pageCursor('l', ([id]) => (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : null)),
  createdAfter: rfc3339.description('Rows written at or after this time (RFC 3339)'),
  createdBefore: rfc3339.description('Rows written before this time (RFC 3339)'),
}).messages({ 'object.unknown': '{{#label}} is not a query parameter of this endpoint' });

export interface LedgerQuery {
  limit: number;
  cursor?: number;
  createdAfter?: Date;
  createdBefore?: Date;
}

export const ledgerCursorOf = (id: number) => encodeCursor('l', [id]);

const DAY = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const day = Joi.string()
  .custom((value: string, helpers) => {
    const at = DAY.test(value) ? cursorKey.time(`${value}T00:00:00Z`) : null;
    // 2026-02-30 parses as 2026-03-02: only a day that exists is taken.
    return at && at.toISOString().slice(0, 10) === value ? value : helpers.error('date.day');
  })
  .messages({ 'date.day': '{{#label}} must be a day as YYYY-MM-DD (UTC), such as 2026-11-01' })
  .meta({ format: 'date' });

/** GET /api/v1/account/usage: two UTC days, both included; by default the last 30 days up to today. */
export const usageQuerySchema = Joi.object({
  from: day.description('The first day, YYYY-MM-DD (UTC), included'),
  to: day.description('The last day, YYYY-MM-DD (UTC), included; today by default'),
}).messages({ 'object.unknown': '{{#label}} is not a query parameter of this endpoint' });

export interface UsageQuery {
  from?: string;
  to?: string;
}
