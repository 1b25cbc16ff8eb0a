import { changeAccountKey, createAccountKey, findAccountKey, listAccountKeys, revokeAccountKey, type ApiKeyRecord } from '@leadgen/db';
import { API_KEYS_MAX_PER_ACCOUNT, scopeErrors, scopesForNewKey, type ApiKeyMode } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { announceKeyEpoch } from '@leadgen/rate-limits';
import type { ApiDependencies } from '../dependencies';
import type { CallingKey } from '../http/authenticate';
import type { KeyInput, ListKeysQuery } from '../routes/keys/keys-schema';
import { keysCursorOf } from '../routes/keys/keys-schema';
import { presentApiKey } from '../presenters/api-key-presenter';

// The account's keys, managed by its own keys (decision 036): the secret shown once, scopes never beyond the
// creator's, and every change that could leave a key cached too long (a revocation, a new expiry) announced.

/** A new key for the caller's account: its scopes checked against the caller's, at most API_KEYS_MAX_PER_ACCOUNT live. */
export async function createKey(deps: ApiDependencies, accountId: string, caller: CallingKey, input: KeyInput) {
  const mode: ApiKeyMode = input.mode ?? caller.mode;
  const scopes = scopesForNewKey(caller, { scopes: input.scopes, mode });
  const created = await createAccountKey(
    deps.db,
    accountId,
    { name: input.name ?? null, scopes, mode, expiresAt: input.expiresAt ?? undefined, createdByKeyId: caller.keyId },
    API_KEYS_MAX_PER_ACCOUNT,
  );
  if (created.outcome === 'limit') throw scopeErrors.apiKeyLimit(API_KEYS_MAX_PER_ACCOUNT);
  return { key: created.key, apiKey: created.apiKey };
}

export async function getKey(deps: ApiDependencies, accountId: string, keyId: string): Promise<ApiKeyRecord> {
  const key = await findAccountKey(deps.db, accountId, keyId);
  if (!key) throw scopeErrors.apiKeyNotFound();
  return key;
}

export async function listKeys(deps: ApiDependencies, accountId: string, query: ListKeysQuery) {
  // One more than asked: whether a next page exists is known without a second query.
  const keys = await listAccountKeys(
    deps.db,
    accountId,
    { mode: query.mode ?? null, includeRevoked: query.includeRevoked },
    query.cursor ?? null,
    query.limit + 1,
  );
  const page = keys.slice(0, query.limit);
  const last = page.at(-1);
  return { items: page.map(presentApiKey), nextCursor: keys.length > query.limit && last ? keysCursorOf(last) : null };
}

/** Renames a key or moves its expiry. A revoked key stays revoked whatever its new expiry says. */
export async function changeKey(deps: ApiDependencies, accountId: string, keyId: string, input: KeyInput): Promise<ApiKeyRecord> {
  const changed = await changeAccountKey(deps.db, accountId, keyId, {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.expiresAt !== undefined ? { expiresAt: input.expiresAt } : {}),
  });
  if (!changed) throw scopeErrors.apiKeyNotFound();
  if (changed.keyEpoch !== null) await announce(deps, changed.key.accountId, changed.keyEpoch);
  return changed.key;
}

/** Revokes a key (idempotent): refused by PostgreSQL at once, and by every API process's cache from its next request. */
export async function revokeKey(deps: ApiDependencies, accountId: string, keyId: string): Promise<ApiKeyRecord> {
  const revoked = await revokeAccountKey(deps.db, accountId, keyId);
  if (!revoked) throw scopeErrors.apiKeyNotFound();
  await announce(deps, revoked.key.accountId, revoked.keyEpoch);
  return revoked.key;
}

// PostgreSQL holds the change already; Redis tells the other API processes to drop their cached copy. Without
// Redis the change stands, and a process that had the key cached may accept it for up to AUTH_CACHE_MS more.
async function announce(deps: ApiDependencies, accountId: string, keyEpoch: number): Promise<void> {
  await announceKeyEpoch(deps.redis, deps.producer.keys.account(accountId).keyEpoch, keyEpoch).catch((error: Error) =>
    logger.warn('key change not announced: redis unavailable; cached copies expire within AUTH_CACHE_MS', { error: error.message }),
  );
}
