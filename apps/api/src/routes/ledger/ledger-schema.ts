import Joi from 'joi';
import { cursorKey, decodeCursor, encodeCursor, rfc3339 } from '../../http/paging';

export const LEDGER_PAGE_DEFAULT = 100;
export const LEDGER_PAGE_LIMIT = 1000;
/** The longest span GET /account/usage answers for at once. */
export const USAGE_MAX_DAYS = 366;
export const USAGE_DEFAULT_DAYS = 30;

const ledgerCursor = Joi.string()
  .max(512)
  .custom((value: string, helpers) => {
    const [id] = decodeCursor('l', value) ?? [];
    // Ledger ids are bigint; a cursor's stays within what JavaScript and the column both hold.
    return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : helpers.error('cursor.invalid');
  })
  .messages({ 'cursor.invalid': '{{#label}} is not a cursor of this listing (pass nextCursor back as it was given)' });

/** GET /api/v1/account/ledger (and .csv): the account's ledger rows, oldest first. */
export const ledgerQuerySchema = Joi.object({
  /** rows per page, 1..1000 (default 100); the CSV streams the whole selection */
  limit: Joi.number().integer().min(1).max(LEDGER_PAGE_LIMIT).default(LEDGER_PAGE_DEFAULT),
  /** the previous page's nextCursor */
  cursor: ledgerCursor,
  /** rows written at or after this time (RFC 3339) */
  createdAfter: rfc3339,
  /** rows written before this time (RFC 3339) */
  createdBefore: rfc3339,
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
  .messages({ 'date.day': '{{#label}} must be a day as YYYY-MM-DD (UTC), such as 2026-11-01' });

/** GET /api/v1/account/usage: two UTC days, both included; by default the last 30 days up to today. */
export const usageQuerySchema = Joi.object({
  /** the first day (YYYY-MM-DD, UTC), included */
  from: day,
  /** the last day (YYYY-MM-DD, UTC), included */
  to: day,
}).messages({ 'object.unknown': '{{#label}} is not a query parameter of this endpoint' });

export interface UsageQuery {
  from?: string;
  to?: string;
}
