import { JSON_BODY_LIMIT_BYTES } from '@leadgen/config';
import { API_KEYS_MAX_PER_ACCOUNT } from '@leadgen/domain';
import type { Endpoint } from '../../http/route-table';
import { hdr, jsonAnswer as answer, problemResponse, ref } from '../../openapi/openapi-schemas';
import { changeKeyRoute, createKeyRoute, getKeyRoute, listKeysRoute, revokeKeyRoute } from './keys-route';
import { keyPath } from '../path-params';
import { changeKeySchema, createKeySchema, listKeysQuerySchema } from './keys-schema';

// The account's API keys (decision 036), managed by any of its keys that holds the `keys` scope; the `read` rate limit.

const notFound = problemResponse("api_key_not_found (also another account's key)");
export const keyEndpoints: Endpoint[] = [
  {
    method: 'post',
    path: '/api/v1/keys',
    auth: 'key',
    scope: 'keys',
    rateLimit: { policy: 'read' },
    body: { limitBytes: JSON_BODY_LIMIT_BYTES },
    request: { body: createKeySchema },
    handler: createKeyRoute,
    operation: {
      tags: ['keys'],
      operationId: 'createApiKey',
      summary: 'A new API key; its secret is in this answer only',
      description: `Makes a key for the account. Its scopes default to the calling key's own and can never include one the calling key lacks. \`mode: "test"\` makes an \`lg_test_…\` key: it works in the account's test account, whose jobs always use the sandbox and spend test credits only, and whose jobs, leads, batches, monitors, webhooks and suppressions live keys never see (nor test keys the live ones). A test key makes only test keys. An account holds at most ${API_KEYS_MAX_PER_ACCOUNT} live keys.`,
      responses: {
        201: answer('The key and its secret', ref('ApiKeyWithSecret'), { Location: hdr('Location') }),
        403: problemResponse(
          'scope_not_held (with `scopes`): a key can only grant scopes it holds; test_mode_unsupported: a test key cannot make a live key',
        ),
        409: problemResponse('api_key_limit (with `limit`): the account holds the most live keys it may'),
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/keys',
    auth: 'key',
    scope: 'keys',
    rateLimit: { policy: 'read' },
    request: { query: listKeysQuerySchema },
    handler: listKeysRoute,
    operation: {
      tags: ['keys'],
      operationId: 'listApiKeys',
      summary: "The account's keys, newest first, without their secrets",
      description: "A page of the account's keys, newest first; revoked ones only with `includeRevoked=true`.",
      responses: {
        200: answer('A page of keys', ref('ApiKeyPage'), { Link: hdr('Link') }),
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/keys/{keyId}',
    auth: 'key',
    scope: 'keys',
    rateLimit: { policy: 'read' },
    request: { params: keyPath },
    handler: getKeyRoute,
    operation: {
      tags: ['keys'],
      operationId: 'getApiKey',
      summary: 'A key, without its secret',
      description: 'One of the account’s keys, revoked ones included.',
      responses: { 200: answer('The key', ref('ApiKey')), 404: notFound },
    },
  },
  {
    method: 'patch',
    path: '/api/v1/keys/{keyId}',
    auth: 'key',
    scope: 'keys',
    rateLimit: { policy: 'read' },
    body: { limitBytes: JSON_BODY_LIMIT_BYTES },
    request: { params: keyPath, body: changeKeySchema },
    handler: changeKeyRoute,
    operation: {
      tags: ['keys'],
      operationId: 'changeApiKey',
      summary: 'Renames a key or moves its expiry (its scopes and mode never change: make another key)',
      description:
        'Changes `name` and/or `expiresAt` (null: never expires). A new expiry holds on every API process from its next request, as a revocation does.',
      responses: {
        200: answer('The key as it is now', ref('ApiKey')),
        404: notFound,
      },
    },
  },
  {
    method: 'delete',
    path: '/api/v1/keys/{keyId}',
    auth: 'key',
    scope: 'keys',
    rateLimit: { policy: 'read' },
    request: { params: keyPath },
    handler: revokeKeyRoute,
    operation: {
      tags: ['keys'],
      operationId: 'revokeApiKey',
      summary: 'Revokes a key: refused everywhere from the next request on (idempotent)',
      description:
        'Revokes the key (the calling key too, if named). It is refused (401) from the next request on, on every API process; revoking it again answers the same body.',
      responses: { 200: answer('The revoked key', ref('ApiKey')), 404: notFound },
    },
  },
];
