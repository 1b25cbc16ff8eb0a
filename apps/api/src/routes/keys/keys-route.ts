import type { Request, Response } from 'express';
import { ID_PATTERNS, scopeErrors } from '@leadgen/domain';
import type { ApiDependencies } from '../../dependencies';
import { authenticatedAccount, callingKey } from '../../http/authenticate';
import { linkNext, nextPageUrl, parseQuery } from '../../http/paging';
import { presentApiKey } from '../../presenters/api-key-presenter';
import { audit } from '../../use-cases/audit-trail';
import { changeKey, createKey, getKey, listKeys, revokeKey } from '../../use-cases/manage-api-keys';
import { changeKeySchema, createKeySchema, listKeysQuerySchema, parseKeyBody, type ListKeysQuery } from './keys-schema';

// /api/v1/keys (decision 036): the account's API keys, managed by its keys that hold the `keys` scope.

// A malformed id cannot name a key: the same 404 as an unknown one, without asking the database.
const keyIdOf = (req: Request): string => {
  const value = String(req.params.keyId);
  if (!ID_PATTERNS.apiKey.test(value)) throw scopeErrors.apiKeyNotFound();
  return value;
};

type Handler = (req: Request, res: Response, deps: ApiDependencies, accountId: string) => Promise<void>;

const route = (handler: Handler) => (deps: ApiDependencies) => async (req: Request, res: Response) => {
  res.setHeader('Cache-Control', 'no-store');
  await handler(req, res, deps, authenticatedAccount(res.locals).id);
};

export const createKeyRoute = route(async (req, res, deps, accountId) => {
  const input = parseKeyBody(createKeySchema, req.body);
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

export const listKeysRoute = route(async (req, res, deps, accountId) => {
  const query = parseQuery<ListKeysQuery>(listKeysQuerySchema, req.query);
  const page = await listKeys(deps, accountId, query);
  if (page.nextCursor) res.setHeader('Link', linkNext(nextPageUrl(req, deps.config.http.publicBaseUrl, page.nextCursor)));
  res.json(page);
});

export const getKeyRoute = route(async (req, res, deps, accountId) => {
  res.json(presentApiKey(await getKey(deps, accountId, keyIdOf(req))));
});

export const changeKeyRoute = route(async (req, res, deps, accountId) => {
  const keyId = keyIdOf(req);
  const input = parseKeyBody(changeKeySchema, req.body);
  const key = await changeKey(deps, accountId, keyId, input);
  await audit(deps, res.locals, accountId, 'key.changed', { keyId, fields: Object.keys(input).sort() });
  res.json(presentApiKey(key));
});

export const revokeKeyRoute = route(async (req, res, deps, accountId) => {
  const keyId = keyIdOf(req);
  const key = await revokeKey(deps, accountId, keyId);
  await audit(deps, res.locals, accountId, 'key.revoked', { keyId });
  res.json(presentApiKey(key));
});
