import Joi from 'joi';
import {
  errors,
  normalizeSuppression,
  OBJECTION_ID_PATTERN,
  objectionErrors,
  type FieldProblem,
  type ObjectionKind,
} from '@leadgen/domain';
import { jsonPointer } from '../../http/body-guard';
import { idParam } from '../../http/request-validation';
import { cursorKey, pageCursor, pageLimit } from '../../http/paging';

/** POST /api/v1/privacy/objections: exactly one subject, the one whose control the person will prove. */
export const objectionBodySchema = Joi.object({
  email: Joi.string().min(3).max(320).description('an email address: a single-use confirmation link is sent to it'),
  domain: Joi.string().min(1).max(253).description('a domain, bare or as a URL: proven by a DNS TXT record or a /.well-known/ file'),
  phone: Joi.string().min(4).max(40).description('a phone number in international form (`+1 512 555 0100`): confirmed by an operator'),
})
  .xor('email', 'domain', 'phone')
  .required()
  .messages({
    'object.unknown': '{{#label}} is not a field of an objection (email, domain, phone)',
    'object.missing': 'send one of email, domain, phone',
    'object.xor': 'send only one of email, domain, phone',
    'object.base': 'the body must be a JSON object',
  })
  .description('Exactly one subject: the one whose control you will prove')
  .meta({ 'x-component': 'ObjectionRequest' });

/** The validated body's subject in its normal form (as the global suppression list holds it). */
export function objectionSubject(fields: Partial<Record<ObjectionKind, string>>): { kind: ObjectionKind; value: string } {
  const kind = (['email', 'domain', 'phone'] as const).find((k) => fields[k] !== undefined)!;
  const normal = normalizeSuppression(kind, fields[kind]!);
  if (!normal) {
    const problem: FieldProblem = {
      pointer: jsonPointer([kind]),
      detail: `${kind} is not a valid ${kind}${kind === 'phone' ? ' in international form (+country code)' : ''}`,
    };
    throw errors.validation([problem]);
  }
  return { kind, value: normal };
}

/** An objection's id in a path: anything else is the 404 an unknown id gets. */
export const objectionPath = Joi.object({
  id: idParam(OBJECTION_ID_PATTERN, objectionErrors.notFound).description('The objection (`obj_…`)'),
});

export const NOTICE_PAGE_DEFAULT = 50;
export const NOTICE_PAGE_LIMIT = 200;

/** GET /api/v1/privacy/objections: the account's notices, newest first. */
export const noticesQuerySchema = Joi.object({
  limit: pageLimit('Notices per page', NOTICE_PAGE_LIMIT, NOTICE_PAGE_DEFAULT),
  cursor: pageCursor('n', ([id]) => {
    const key = cursorKey.text(id);
    return key !== null && /^\d{1,18}$/.test(key) ? key : null;
  }),
}).messages({ 'object.unknown': '{{#label}} is not a query parameter of this endpoint' });

export interface NoticesQuery {
  limit: number;
  /** the last notice id of the previous page */
  cursor?: string;
}
