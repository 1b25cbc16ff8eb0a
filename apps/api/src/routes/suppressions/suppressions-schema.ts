import Joi from 'joi';
import {
  SUPPRESSION_KINDS,
  SUPPRESSION_UPLOAD_LIMIT,
  errors,
  normalizeSuppression,
  type FieldProblem,
  type SuppressionEntry,
  type SuppressionKind,
} from '@leadgen/domain';
import { jsonPointer, unsafeContentProblems } from '../../http/body-guard';
import { cursorKey } from '../../http/paging';

const FIELD_OF: Record<SuppressionKind, 'domains' | 'emails' | 'phones'> = { domain: 'domains', email: 'emails', phone: 'phones' };
const entries = Joi.array().items(Joi.string().min(1).max(320)).max(SUPPRESSION_UPLOAD_LIMIT);

/** PUT and DELETE /api/v1/suppressions: the entries to add or remove, up to 100,000 in one call. */
export const suppressionsBodySchema = Joi.object({
  /** domains, bare or as URLs: `acme.com`, `https://www.acme.com/contact` */
  domains: entries,
  /** email addresses */
  emails: entries,
  /** phone numbers in international form (`+1 512 555 0100`) */
  phones: entries,
})
  .or('domains', 'emails', 'phones')
  .required()
  .messages({
    'object.unknown': '{{#label}} is not a list of the suppression list (domains, emails, phones)',
    'object.missing': 'send at least one of domains, emails, phones',
    'object.base': 'the body must be a JSON object',
  });

/** Validates the body and brings every entry to its normal form, reporting every problem at once. */
export function parseSuppressionsBody(body: unknown): SuppressionEntry[] {
  const unsafe = unsafeContentProblems(body);
  if (unsafe.length > 0) throw errors.validation(unsafe);
  const { value, error } = suppressionsBodySchema.validate(body, { abortEarly: false, errors: { wrap: { label: false } } });
  if (error) throw errors.validation(error.details.slice(0, 50).map((d) => ({ pointer: jsonPointer(d.path), detail: d.message })));
  const lists = value as Partial<Record<'domains' | 'emails' | 'phones', string[]>>;
  const problems: FieldProblem[] = [];
  const found: SuppressionEntry[] = [];
  for (const kind of SUPPRESSION_KINDS) {
    const field = FIELD_OF[kind];
    (lists[field] ?? []).forEach((text, index) => {
      const normal = normalizeSuppression(kind, text);
      if (normal) found.push({ kind, value: normal });
      else if (problems.length < 50)
        problems.push({
          pointer: jsonPointer([field, index]),
          detail: `${field}[${index}] is not a ${kind}${kind === 'phone' ? ' in international form (+country code)' : ''}`,
        });
    });
  }
  const total = found.length + problems.length;
  if (total > SUPPRESSION_UPLOAD_LIMIT)
    problems.unshift({ pointer: '#', detail: `at most ${SUPPRESSION_UPLOAD_LIMIT} entries in one call` });
  if (problems.length > 0) throw errors.validation(problems);
  return found;
}

/** GET /api/v1/suppressions: `kind` (domain, email, phone), `limit` 1..1000 (default 100), an opaque `cursor`. */
export const suppressionsQuerySchema = Joi.object({
  kind: Joi.string().valid(...SUPPRESSION_KINDS),
  limit: Joi.number().integer().min(1).max(1000).default(100),
  cursor: Joi.string().max(2000),
}).messages({ 'object.unknown': '{{#label}} is not a parameter of this list (kind, limit, cursor)' });

export interface SuppressionsQuery {
  kind?: SuppressionKind;
  limit: number;
  after?: SuppressionEntry;
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

export function parseSuppressionsQuery(query: unknown): SuppressionsQuery {
  const { value, error } = suppressionsQuerySchema.validate(query, {
    abortEarly: false,
    convert: true,
    errors: { wrap: { label: false } },
  });
  const problems: FieldProblem[] = (error?.details ?? []).map((d) => ({ pointer: jsonPointer(d.path), detail: d.message }));
  const raw = value as { kind?: SuppressionKind; limit: number; cursor?: string };
  const after = raw.cursor === undefined ? undefined : decodeCursor(raw.cursor);
  if (after === null) problems.push({ pointer: '#/cursor', detail: 'cursor is not one this list gave out' });
  if (problems.length > 0) throw errors.validation(problems);
  return { kind: raw.kind, limit: raw.limit, after: after ?? undefined };
}
