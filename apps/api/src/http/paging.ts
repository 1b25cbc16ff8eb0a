import type { Request } from 'express';
import Joi from 'joi';

/**
 * Opaque keyset cursors: base64url of a small JSON array whose first member names the listing, so a
 * jobs cursor is refused by the leads listing. Clients must not build them; the shape may change.
 */
export function encodeCursor(kind: string, keys: Array<string | number>): string {
  return Buffer.from(JSON.stringify([kind, ...keys])).toString('base64url');
}

/** The cursor's keys, or null when it is not a cursor of this listing. */
export function decodeCursor(kind: string, cursor: string): unknown[] | null {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return Array.isArray(decoded) && decoded[0] === kind ? decoded.slice(1) : null;
  } catch {
    return null;
  }
}

/*
 * A cursor's keys, checked against what the SQL they reach accepts: a tampered cursor is a 400, never
 * a statement PostgreSQL refuses (a 500). Integers fit int4; times lie within years 1..9999, inside
 * timestamptz's range (4713 BC..294276 AD) and written the same by every driver; text has no NUL
 * (PostgreSQL's text cannot hold one) and no more characters than any id or entry we give out.
 */
const INT4_MAX = 2_147_483_647;
const EARLIEST = new Date('0001-01-01T00:00:00Z').getTime();
const LATEST = new Date('9999-12-31T23:59:59.999Z').getTime();
export const CURSOR_TEXT_MAX = 512;

export const cursorKey = {
  /** an integer of an int4 column, at least `min` */
  int(value: unknown, min = 0): number | null {
    return Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= INT4_MAX ? (value as number) : null;
  },
  /** a timestamptz, from the ISO text the cursor was written with */
  time(value: unknown): Date | null {
    if (typeof value !== 'string' || value.length > 64) return null;
    const time = Date.parse(value);
    return Number.isNaN(time) || time < EARLIEST || time > LATEST ? null : new Date(time);
  },
  /** a text key: an id or an entry */
  text(value: unknown): string | null {
    return typeof value === 'string' && value.length <= CURSOR_TEXT_MAX && !value.includes('\u0000') ? value : null;
  },
};

// RFC 3339 section 5.6 date-time: a full date, a time and an offset (Z or ±hh:mm), seconds fraction optional.
const RFC3339 =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt ]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d{1,9})?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

/** A query parameter holding an RFC 3339 date-time, converted to a Date (`format: date-time` in the document). */
export const rfc3339 = Joi.string()
  .custom((value: string, helpers) => {
    const time = RFC3339.test(value) ? cursorKey.time(value.replace(' ', 'T')) : null;
    return time ?? helpers.error('date.rfc3339');
  })
  .messages({ 'date.rfc3339': '{{#label}} must be an RFC 3339 date-time between the years 1 and 9999, such as 2026-11-22T14:00:00Z' })
  .meta({ format: 'date-time' });

/** A time bound of a listing (`createdAfter`, `createdBefore`), as the document describes it. */
export const rfc3339Bound = (description: string) => rfc3339.description(`${description} (RFC 3339, with an offset)`);

// The parts of a listing's query, each with what the document says of it (openapi/joi-schema.ts parametersOf).

/** `limit`: how many a page holds, 1..maximum, `byDefault` when absent. */
export const pageLimit = (description: string, maximum: number, byDefault: number) =>
  Joi.number().integer().min(1).max(maximum).default(byDefault).description(description);

export const CURSOR_DESCRIPTION = "The previous page's `nextCursor` (opaque)";

/**
 * `cursor`: a `nextCursor` this listing gave out (`encodeCursor(kind, keys)`), given back as it was: `read` turns
 * its keys into what the listing's SQL takes, or null when they are not (a tampered cursor is a 400, never a 500).
 */
export const pageCursor = (kind: string, read: (keys: unknown[]) => unknown) =>
  Joi.string()
    .max(CURSOR_TEXT_MAX)
    .custom((value: string, helpers) => {
      const keys = decodeCursor(kind, value);
      return (keys ? read(keys) : null) ?? helpers.error('cursor.invalid');
    })
    .messages({ 'cursor.invalid': '{{#label}} is not a cursor of this listing (pass nextCursor back as it was given)' })
    .description(CURSOR_DESCRIPTION);

/**
 * A listing's query as its download (`.csv`, `.jsonl`) takes it: the named parameters (the page size, the format
 * the path already says) are taken and ignored, so the download's document does not list them.
 */
export const takenAndIgnored = (query: Joi.ObjectSchema, ...names: string[]) => query.fork(names, (key) => key.strip());

/** The keys of a listing newest first: the last row's creation time and id. */
export const timeAndId = ([time, id]: unknown[]): { createdAt: Date; id: string } | null => {
  const createdAt = cursorKey.time(time);
  const key = cursorKey.text(id);
  return createdAt && key !== null ? { createdAt, id: key } : null;
};

/** One value or several, repeated (`?status=a&status=b`) or comma-separated (`?status=a,b`). */
export const oneOrMore = (item: Joi.StringSchema) =>
  Joi.array()
    .items(item)
    .min(1)
    .single()
    .custom((values: string[]) => [...new Set(values)])
    .prefs({ convert: true });

/** The URL of the next page: this request's own path and query with the cursor replaced. */
export function nextPageUrl(req: Request, publicBaseUrl: string | null, cursor: string): string {
  const url = new URL(req.originalUrl, 'http://x');
  url.searchParams.set('cursor', cursor);
  return `${publicBaseUrl ?? ''}${url.pathname}${url.search}`;
}

export function linkNext(url: string): string {
  return `<${url}>; rel="next"`;
}
