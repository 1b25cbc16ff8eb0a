import { API_KEY_MODES, API_KEY_SCOPES } from '@leadgen/domain';
import { d, nullable, object, ref, str, time, type Schema } from './openapi-schemas';

// The API key's shapes (decision 036): never its secret, except in the creation's answer.

const scopes = d('What the key may do (each endpoint names the scope it needs in `x-required-scope`)', {
  type: 'array',
  items: { type: 'string', enum: [...API_KEY_SCOPES] },
  minItems: 1,
  uniqueItems: true,
});
export const modes = { type: 'string', enum: [...API_KEY_MODES] };

const apiKey = object({
  keyId: d('The key id (key_…), not the secret', str),
  name: d('Your label for the key', nullable(str)),
  prefix: d('The first 12 characters of the secret (`lg_live_` or `lg_test_` and four more), to recognise it', str),
  mode: d('live, or test: its jobs always use the sandbox, spend no credits and are seen only by test keys', modes),
  scopes,
  createdAt: d('When it was made', time),
  expiresAt: d('When it stops working; null: never', nullable(time)),
  lastUsedAt: d('When it last authenticated a request, to the hour', nullable(time)),
  revokedAt: d('When it was revoked; null while it is not', nullable(time)),
  createdByKeyId: d('The key that created it over the API; null when the operator issued it', nullable(str)),
});

export const keySchemas: Record<string, Schema> = {
  ApiKey: apiKey,
  ApiKeyWithSecret: {
    allOf: [
      ref('ApiKey'),
      object({ apiKey: d('The secret: shown in this answer only, store it now (`Authorization: Bearer <apiKey>`)', str) }),
    ],
  },
  ApiKeyPage: object({
    items: d('The keys, newest first', { type: 'array', items: ref('ApiKey') }),
    nextCursor: d('Pass as `cursor` for the next page; null on the last', nullable(str)),
  }),
};
