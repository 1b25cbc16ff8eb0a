import { callingKey } from '../../http/authenticate';
import { linkNext, nextPageUrl } from '../../http/paging';
import type { Valid } from '../../http/request-validation';
import { accountRoute as route } from '../../http/route-table';
import { presentApiKey } from '../../presenters/api-key-presenter';
import { audit } from '../../use-cases/audit-trail';
import { changeKey, createKey, getKey, listKeys, revokeKey } from '../../use-cases/manage-api-keys';
import type { KeyPath } from '../path-params';
import type { KeyInput, ListKeysQuery } from './keys-schema';

// /api/v1/keys (decision 036): the account's API keys, managed by its keys that hold the `keys` scope.

export const createKeyRoute = route(async (_req, res, deps, accountId, { body: input }: Valid<unknown, unknown, KeyInput>) => {
  const { key, apiKey } = await createKey(deps, accountId, callingKey(res.locals), input);
  await audit(deps, res.locals, accountId, 'key.created', {
    keyId: key.keyId,
    mode: key.mode,
    scopes: key.scopes,
    expiresAt: key.expiresAt?.toISOString() ?? null,
  });
  res.setHeader('Location', `${deps.config.http.publicBaseUrl ?? ''}/api/v1/keys/${key.keyId}`);
  res.status(201).json({ ...presentApiKey(key), apiKey });
});

export const listKeysRoute = route(async (req, res, deps, accountId, { query }: Valid<unknown, ListKeysQuery>) => {
  const page = await listKeys(deps, accountId, query);
  if (page.nextCursor) res.setHeader('Link', linkNext(nextPageUrl(req, deps.config.http.publicBaseUrl, page.nextCursor)));
  res.json(page);
});

export const getKeyRoute = route(async (_req, res, deps, accountId, { params }: Valid<KeyPath>) => {
  res.json(presentApiKey(await getKey(deps, accountId, params.keyId)));
});

export const changeKeyRoute = route(
  async (_req, res, deps, accountId, { params: { keyId }, body: input }: Valid<KeyPath, unknown, KeyInput>) => {
    const key = await changeKey(deps, accountId, keyId, input);
    await audit(deps, res.locals, accountId, 'key.changed', { keyId, fields: Object.keys(input).sort() });
    res.json(presentApiKey(key));
  },
);

export const revokeKeyRoute = route(async (_req, res, deps, accountId, { params: { keyId } }: Valid<KeyPath>) => {
  const key = await revokeKey(deps, accountId, keyId);
  await audit(deps, res.locals, accountId, 'key.revoked', { keyId });
  res.json(presentApiKey(key));
});
