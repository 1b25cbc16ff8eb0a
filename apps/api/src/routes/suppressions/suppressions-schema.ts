import type { Request } from 'express';
import Joi from 'joi';
import {
  SUPPRESSION_KINDS,
  SUPPRESSION_UPLOAD_LIMIT,
  normalizeSuppression,
  type FieldProblem,
  type SuppressionEntry,
  type SuppressionKind,
} from '@leadgen/domain';
import { CURSOR_DESCRIPTION, cursorKey, pageLimit } from '../../http/paging';
import { checkRequest, requestChecker } from '../../http/request-validation';

const FIELD_OF: Record<SuppressionKind, 'domains' | 'emails' | 'phones'> = { domain: 'domains', email: 'emails', phone: 'phones' };

const entries = (description: string) =>
  Joi.array().items(Joi.string().min(1).max(320)).max(SUPPRESSION_UPLOAD_LIMIT).description(description);

/** At most this many problems of an upload are listed. */
export const SUPPRESSION_PROBLEMS_LISTED = 50;

/** Every entry in its normal form, once the lists have their shape: the entries, or the first problems (`emails[3] is not a email`). */
function normalEntries(lists: Partial<Record<'domains' | 'emails' | 'phones', string[]>>, helpers: Joi.CustomHelpers) {
  const problems: FieldProblem[] = [];
  const found: SuppressionEntry[] = [];
  for (const kind of SUPPRESSION_KINDS) {
    const field = FIELD_OF[kind];
    (lists[field] ?? []).forEach((text, index) => {
      const normal = normalizeSuppression(kind, text);
      if (normal) found.push({ kind, value: normal });
      else if (problems.length < SUPPRESSION_PROBLEMS_LISTED)
        problems.push({
          pointer: `#/${field}/${index}`,
          detail: `${field}[${index}] is not a ${kind}${kind === 'phone' ? ' in international form (+country code)' : ''}`,
        });
    });
  }
  if (found.length + problems.length > SUPPRESSION_UPLOAD_LIMIT)
    problems.unshift({ pointer: '#', detail: `at most ${SUPPRESSION_UPLOAD_LIMIT} entries in one call` });
  return problems.length > 0 ? helpers.error('suppressions.invalid', { problems }) : found;
}

/**
 * PUT and DELETE /api/v1/suppressions: the entries to add or remove, up to 100,000 in one call, as the
 * entries of the list (each in its normal form).
 */
export const suppressionsBodySchema = Joi.object({
  domains: entries('Bare domains or URLs, any case (`www.` is dropped): `acme.com`, `https://www.acme.com/contact`'),
  emails: entries('Email addresses, any case'),
  phones: entries('Phone numbers in international form (+ and country code): `+1 512 555 0100`'),
})
  .or('domains', 'emails', 'phones')
  .required()
  .messages({
    'object.unknown': '{{#label}} is not a list of the suppression list (domains, emails, phones)',
    'object.missing': 'send at least one of domains, emails, phones',
    'object.base': 'the body must be a JSON object',
    'suppressions.invalid': 'the body holds entries that are not what their list says',
  })
  .custom(normalEntries)
  .description('At most 100,000 entries in one call; bodies up to 8 MiB on this route.');

export interface SuppressionsQuery {
  kind?: SuppressionKind;
  limit: number;
  cursor?: SuppressionEntry;
}

export function encodeCursor(entry: SuppressionEntry): string {
  return Buffer.from(JSON.stringify([entry.kind, entry.value])).toString('base64url');
}

function decodeCursor(cursor: string): SuppressionEntry | null {
  try {
    const [kind, value] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [SuppressionKind, string];
    const entry = cursorKey.text(value);
    return (SUPPRESSION_KINDS as readonly string[]).includes(kind) && entry !== null ? { kind, value: entry } : null;
  } catch {
    return null;
  }
}

/** GET /api/v1/suppressions: `kind` (domain, email, phone), `limit` 1..1000 (default 100), an opaque `cursor` (the entry after which the page starts). */
export const suppressionsQuerySchema = Joi.object<SuppressionsQuery>({
  kind: Joi.string()
    .valid(...SUPPRESSION_KINDS)
    .description('Only entries of this kind'),
  limit: pageLimit('Entries per page', 1000, 100),
  cursor: Joi.string()
    .max(2000)
    .custom((value: string, helpers) => decodeCursor(value) ?? helpers.message({ custom: 'cursor is not one this list gave out' }))
    .description(CURSOR_DESCRIPTION),
}).messages({ 'object.unknown': '{{#label}} is not a parameter of this list (kind, limit, cursor)' });

const uploadChecker = requestChecker({ body: suppressionsBodySchema, maxProblems: SUPPRESSION_PROBLEMS_LISTED });

/**
 * An upload's parsed body checked as the route table checks any body (the body guard, then the schema, the first
 * problems listed), on the suppression uploads' thread (suppression-parser-thread.ts) rather than the event loop.
 */
export function parseSuppressionsBody(body: unknown): SuppressionEntry[] {
  return checkRequest(uploadChecker, { body, params: {}, query: {} } as unknown as Request, {}).body as SuppressionEntry[];
}
