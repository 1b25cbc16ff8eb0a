import type { Request, Response } from 'express';
import { stringify } from 'csv-stringify/sync';
import type { ExportChunk, LeadRow } from '@leadgen/db';
import { logger } from '@leadgen/logger';
import { presentLeadItemJson } from './presenters/lead-presenter';
import type { ExportFormat } from './routes/leads/leads-schema';

/** `?format=` wins; else Accept picks among JSON (the default, also for `*\/*`), CSV and JSON Lines. */
export function exportFormat(req: Request, format: ExportFormat | undefined): ExportFormat {
  if (format) return format;
  const chosen = req.accepts(['application/json', 'text/csv', 'application/x-ndjson', 'application/jsonl']);
  if (chosen === 'text/csv') return 'csv';
  return chosen === 'application/x-ndjson' || chosen === 'application/jsonl' ? 'jsonl' : 'json';
}

type Flat = Record<string, string | number | null>;
interface LeadData {
  source?: string;
  businessName?: string;
  email?: string | null;
  phone?: string | null;
  address?: string | null;
  website?: string | null;
  reviewScore?: number | null;
  categories?: string[];
  socialProfiles?: Record<string, string | null>;
  person?: Record<string, unknown>;
  store?: Record<string, unknown>;
  place?: Record<string, unknown>;
  retrievedAt?: string;
  provenance?: { email?: { sourceUrl?: string | null } | null; phone?: { sourceUrl?: string | null } | null } & Record<string, unknown>;
  contacts?: unknown[];
  notice?: { sources?: string[]; retrievedAt?: string | null; objectionUrl?: string | null };
  emailVerification?: { status: string; checks: Record<string, boolean>; verdict?: string; engine?: string } | null;
}

/**
 * The CSV columns, in this order, for every source (a column a source does not fill stays empty), so a
 * spreadsheet or CRM mapping made once keeps working: documented in docs/api.md. Never reorder or rename.
 */
export const CSV_COLUMNS = [
  'jobId',
  'resultSetId',
  'position',
  'deliveredAt',
  'source',
  'businessName',
  'email',
  'phone',
  'address',
  'website',
  'reviewScore',
  'categories',
  'socialProfiles.facebook',
  'socialProfiles.instagram',
  'socialProfiles.linkedin',
  'person.fullName',
  'person.title',
  'person.seniority',
  'person.linkedinUrl',
  'person.location',
  'store.domain',
  'store.country',
  'store.platform',
  'contacts',
  // Columns added later come after the first ones, so a mapping made by position keeps working.
  'emailVerification.status',
  'emailVerification.checks',
  'emailVerification.verdict',
  'emailVerification.engine',
  'store.categoryPath',
  // Decision 038: the complete lead. Lists are one cell joined by "; "; provenance is one cell of JSON.
  'retrievedAt',
  'place.placeId',
  'place.lat',
  'place.lng',
  'place.street',
  'place.locality',
  'place.postalCode',
  'place.region',
  'place.countryCode',
  'place.internationalPhone',
  'place.reviewCount',
  'place.priceLevel',
  'place.businessStatus',
  'place.openingHours',
  'place.googleMapsUri',
  'place.primaryType',
  'place.types',
  'place.utcOffsetMinutes',
  'person.workEmail',
  'person.emailType',
  'person.phoneNumbers',
  'person.locality',
  'person.region',
  'person.country',
  'person.postalCode',
  'person.jobStartDate',
  'person.seniorityLevels',
  'person.company.name',
  'person.company.website',
  'person.company.size',
  'person.company.industry',
  'person.company.linkedinUrl',
  'person.company.location',
  'person.skills',
  'store.merchantName',
  'store.plan',
  'store.city',
  'store.region',
  'store.categoryPaths',
  'store.estimatedMonthlySales',
  'store.employeeCount',
  'store.productCount',
  'store.rank',
  'store.technologies',
  'store.apps',
  'store.createdAt',
  'provenance.email.sourceUrl',
  'provenance.phone.sourceUrl',
  'provenance',
  // Issue 38: the notice the person is owed at the first contact (GDPR art. 14 and 21(4)).
  'notice.sources',
  'notice.retrievedAt',
  'notice.objectionUrl',
] as const;

type Cell = string | number | null;
/** A scalar as a cell; a list joined by "; "; anything else (or nothing) empty. */
function cell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number') return value;
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.filter((v) => typeof v === 'string' || typeof v === 'number').join('; ');
  return null;
}

function obj(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The decision-038 columns of one lead. */
function completeLeadCells(lead: LeadData): Record<string, Cell> {
  const place = obj(lead.place);
  const location = obj(place.location);
  const address = obj(place.addressComponents);
  const hours = obj(place.openingHours);
  const person = obj(lead.person);
  const parts = obj(person.locationParts);
  const company = obj(person.company);
  const store = obj(lead.store);
  return {
    retrievedAt: cell(lead.retrievedAt),
    'place.placeId': cell(place.placeId),
    'place.lat': cell(location.lat),
    'place.lng': cell(location.lng),
    'place.street': cell(address.street),
    'place.locality': cell(address.locality),
    'place.postalCode': cell(address.postalCode),
    'place.region': cell(address.region),
    'place.countryCode': cell(address.countryCode),
    'place.internationalPhone': cell(place.internationalPhone),
    'place.reviewCount': cell(place.reviewCount),
    'place.priceLevel': cell(place.priceLevel),
    'place.businessStatus': cell(place.businessStatus),
    'place.openingHours': cell(hours.weekdayDescriptions),
    'place.googleMapsUri': cell(place.googleMapsUri),
    'place.primaryType': cell(place.primaryType),
    'place.types': cell(place.types),
    'place.utcOffsetMinutes': cell(place.utcOffsetMinutes),
    'person.workEmail': cell(person.workEmail),
    'person.emailType': cell(person.emailType),
    'person.phoneNumbers': cell(person.phoneNumbers),
    'person.locality': cell(parts.locality),
    'person.region': cell(parts.region),
    'person.country': cell(parts.country),
    'person.postalCode': cell(parts.postalCode),
    'person.jobStartDate': cell(person.jobStartDate),
    'person.seniorityLevels': cell(person.seniorityLevels),
    'person.company.name': cell(company.name),
    'person.company.website': cell(company.website),
    'person.company.size': cell(company.size),
    'person.company.industry': cell(company.industry),
    'person.company.linkedinUrl': cell(company.linkedinUrl),
    'person.company.location': cell(company.location),
    'person.skills': cell(person.skills),
    'store.merchantName': cell(store.merchantName),
    'store.plan': cell(store.plan),
    'store.city': cell(store.city),
    'store.region': cell(store.region),
    'store.categoryPaths': cell(store.categoryPaths),
    'store.estimatedMonthlySales': cell(store.estimatedMonthlySales),
    'store.employeeCount': cell(store.employeeCount),
    'store.productCount': cell(store.productCount),
    'store.rank': cell(store.rank),
    'store.technologies': cell(store.technologies),
    'store.apps': cell(store.apps),
    'store.createdAt': cell(store.createdAt),
    'provenance.email.sourceUrl': cell(lead.provenance?.email?.sourceUrl),
    'provenance.phone.sourceUrl': cell(lead.provenance?.phone?.sourceUrl),
    provenance: lead.provenance ? JSON.stringify(lead.provenance) : null,
    'notice.sources': cell(lead.notice?.sources),
    'notice.retrievedAt': cell(lead.notice?.retrievedAt),
    'notice.objectionUrl': cell(lead.notice?.objectionUrl),
  };
}

function flatten(row: LeadRow): Flat {
  const lead = JSON.parse(row.data) as LeadData;
  const nested = (group: Record<string, unknown> | undefined, key: string) => cell(group?.[key]);
  return {
    jobId: row.jobId,
    resultSetId: row.resultSetId,
    position: row.position,
    deliveredAt: row.deliveredAt.toISOString(),
    source: lead.source ?? null,
    businessName: lead.businessName ?? null,
    email: lead.email ?? null,
    phone: lead.phone ?? null,
    address: lead.address ?? null,
    website: lead.website ?? null,
    reviewScore: lead.reviewScore ?? null,
    // One cell: the categories joined by "; " (none of the sources puts a semicolon in a category).
    categories: (lead.categories ?? []).join('; '),
    'socialProfiles.facebook': nested(lead.socialProfiles, 'facebook'),
    'socialProfiles.instagram': nested(lead.socialProfiles, 'instagram'),
    'socialProfiles.linkedin': nested(lead.socialProfiles, 'linkedin'),
    'person.fullName': nested(lead.person, 'fullName'),
    'person.title': nested(lead.person, 'title'),
    'person.seniority': nested(lead.person, 'seniority'),
    'person.linkedinUrl': nested(lead.person, 'linkedinUrl'),
    'person.location': nested(lead.person, 'location'),
    'store.domain': nested(lead.store, 'domain'),
    'store.country': nested(lead.store, 'country'),
    'store.platform': nested(lead.store, 'platform'),
    // A variable-length list stays one cell: its JSON array (empty for sources without contacts).
    contacts: lead.contacts ? JSON.stringify(lead.contacts) : null,
    'emailVerification.status': lead.emailVerification?.status ?? null,
    // One cell: the checks that hold, joined by "; " ("roleAccount; freeProvider"); empty when none does.
    'emailVerification.checks': lead.emailVerification
      ? Object.entries(lead.emailVerification.checks)
          .filter(([, holds]) => holds)
          .map(([check]) => check)
          .join('; ')
      : null,
    // Empty on leads delivered before mailbox verdicts (decision 034).
    'emailVerification.verdict': lead.emailVerification?.verdict ?? null,
    'emailVerification.engine': lead.emailVerification?.engine ?? null,
    'store.categoryPath': nested(lead.store, 'categoryPath'),
    ...completeLeadCells(lead),
  };
}

/**
 * RFC 4180 (CRLF, quotes doubled by the library). OWASP's CSV-injection guidance: a cell starting with = + - @ tab
 * or CR gets a leading apostrophe (csv-stringify's escape_formulas) and every text cell is quoted, so no spreadsheet
 * runs it as a formula. prisma/functions/lead_csv_row.sql writes the same bytes in PostgreSQL for the exports of a
 * job's and of the account's leads (decision 043); this one serves a batch's, and is what that function is checked against.
 */
export function csvRows(rows: LeadRow[], header = false): string {
  return stringify(rows.map(flatten), {
    header,
    columns: [...CSV_COLUMNS],
    record_delimiter: 'windows',
    escape_formulas: true,
    quoted_string: true,
    cast: { number: (value) => String(value) },
  });
}

const CSV_HEADER = csvRows([], true);

/** Writes a chunk, waiting while the socket's buffer is full; false once the client has gone. */
export async function write(res: Response, chunk: string | Buffer): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return false;
  if (res.write(chunk)) return true;
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
  return !res.destroyed;
}

/** A part of an export as it goes out: its leads' count and their lines (CSV without the header row). */
export interface ExportPart {
  rows: number;
  body: string | Buffer;
}

/** A part rendered in the API from rows read as objects (a batch's leads). */
export function rowsPart(rows: LeadRow[], format: 'csv' | 'jsonl'): ExportPart & { last: LeadRow | undefined } {
  const body = rows.length === 0 ? '' : format === 'csv' ? csvRows(rows) : `${rows.map(presentLeadItemJson).join('\n')}\n`;
  return { rows: rows.length, body, last: rows.at(-1) };
}

/** A part PostgreSQL rendered (COPY, packages/db/src/lead-export-copy.ts): its lines' bytes, passed on in one write. */
export function copiedPart(chunk: ExportChunk): ExportPart & { last: ExportChunk['last'] } {
  return { rows: chunk.rows, body: Buffer.concat(chunk.lines, chunk.bytes), last: chunk.last };
}

export interface ExportStream<P extends ExportPart> {
  /** the first part, read before any byte is sent so that its errors still become Problem Details */
  first: P;
  /** the part after this one; an empty one ends the export */
  next(after: P): Promise<P>;
  filename: string;
  headers?: Record<string, string>;
  /**
   * Runs once the outcome is known: before the last byte when the export is whole (so a client that has
   * its whole file can already see the export in the audit trail), after the cut otherwise.
   */
  settle?(outcome: ExportOutcome): Promise<void>;
}

export interface ExportOutcome {
  /** leads written to the socket */
  leads: number;
  /** false when the client hung up or a read failed before the end */
  complete: boolean;
}

/**
 * Streams the whole selection as CSV or JSON Lines, a part at a time: the next part is read while this one is
 * written (the database and the socket work at once), and no more is read until it is in the socket's buffer, so
 * memory holds two parts whatever the export's size; a client that hangs up stops the reading at the part under way.
 */
export async function streamExport<P extends ExportPart>(
  res: Response,
  format: 'csv' | 'jsonl',
  stream: ExportStream<P>,
): Promise<ExportOutcome> {
  res.status(200);
  res.setHeader('Content-Type', format === 'csv' ? 'text/csv; charset=utf-8; header=present' : 'application/x-ndjson; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${stream.filename}.${format}"`);
  res.setHeader('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(stream.headers ?? {})) res.setHeader(name, value);
  let part = stream.first;
  let leads = 0;
  let settled = false;
  const settle = async (outcome: ExportOutcome) => {
    settled = true;
    await stream.settle?.(outcome);
    return outcome;
  };
  try {
    if (format === 'csv' && !(await write(res, CSV_HEADER))) return await settle({ leads, complete: false });
    while (part.rows > 0) {
      const next = stream.next(part);
      // Read ahead; if the client goes first, the read still ends (one part) and its failure is nobody's.
      next.catch(() => undefined);
      if (!(await write(res, part.body))) return await settle({ leads, complete: false });
      leads += part.rows;
      part = await next;
    }
    await settle({ leads, complete: true });
    res.end();
    return { leads, complete: true };
  } catch (error) {
    // Headers and part of the body are out: the only honest signal left is a cut connection.
    logger.warn('export stopped by an error', { error: (error as Error).message });
    res.destroy(error instanceof Error ? error : new Error(String(error)));
    const outcome = { leads, complete: false };
    if (!settled) await settle(outcome).catch((failure: Error) => logger.warn('export not settled', { error: failure.message }));
    return outcome;
  }
}
