import Joi from 'joi';
import { API_KEY_MODES, API_KEY_SCOPES, type ApiKeyMode, type ApiKeyScope } from '@leadgen/domain';
import { encodeCursor, pageCursor, pageLimit, rfc3339, timeAndId } from '../../http/paging';

export const KEYS_PAGE_DEFAULT = 20;
export const KEYS_PAGE_LIMIT = 100;
export const KEY_NAME_MAX = 100;

const name = Joi.string().trim().min(1).max(KEY_NAME_MAX);
// A date-time in the body, as the listings' query takes one (RFC 3339), and in the future.
const expiresAt = rfc3339
  .custom((value: Date, helpers) => (value.getTime() > Date.now() ? value : helpers.error('date.future')))
  .messages({
    'date.future': '{{#label}} must lie in the future',
  });

/** POST /api/v1/keys: a new key. */
export const createKeySchema = Joi.object({
  name: name.allow(null).description(`Your label for the key, 1..${KEY_NAME_MAX} characters`),
  scopes: Joi.array()
    .items(Joi.string().valid(...API_KEY_SCOPES))
    .min(1)
    .unique()
    .description("What the key may do; by default the calling key's (a key can only grant scopes it holds)"),
  mode: Joi.string()
    .valid(...API_KEY_MODES)
    .description("live or test (lg_test_…: the sandbox always, test credits only); by default the calling key's"),
  expiresAt: expiresAt.allow(null).description('When the key stops working (RFC 3339, in the future); null or absent: never'),
})
  .required()
  .messages({ 'object.unknown': '{{#label}} is not a field of an API key', 'object.base': 'the body must be a JSON object' });

/** PATCH /api/v1/keys/{keyId}: a new name and/or expiry, at least one. Scopes never change: create another key. */
export const changeKeySchema = Joi.object({
  name: name.allow(null).description(`Your label for the key, 1..${KEY_NAME_MAX} characters`),
  expiresAt: expiresAt.allow(null).description('When the key stops working (RFC 3339, in the future); null: never'),
})
  .min(1)
  .required()
  .messages({
    'object.unknown': '{{#label}} is not a field of an API key that can change (scopes and mode never do: create another key)',
    'object.base': 'the body must be a JSON object',
    'object.min': 'send at least one of name, expiresAt',
  });

export interface KeyInput {
  name?: string | null;
  scopes?: ApiKeyScope[];
  mode?: ApiKeyMode;
  expiresAt?: Date | null;
}

/** GET /api/v1/keys: newest first. */
export const listKeysQuerySchema = Joi.object({
  limit: pageLimit('Keys per page', KEYS_PAGE_LIMIT, KEYS_PAGE_DEFAULT),
  cursor: pageCursor('k', timeAndId),
  mode: Joi.string()
    .valid(...API_KEY_MODES)
    .description('Only live or only test keys'),
  includeRevoked: Joi.boolean().default(false).description('List revoked keys too'),
}).messages({ 'object.unknown': '{{#label}} is not a query parameter of this endpoint' });

export interface ListKeysQuery {
  limit: number;
  cursor?: { createdAt: Date; id: string };
  mode?: ApiKeyMode;
  includeRevoked: boolean;
}

export const keysCursorOf = (last: { createdAt: Date; keyId: string }) => encodeCursor('k', [last.createdAt.toISOString(), last.keyId]);
