import type { ApiKeyRecord } from '@leadgen/db';

/** A key as the keys endpoints show it: never its secret (only the creation's answer adds `apiKey`) nor its hash. */
export function presentApiKey(key: ApiKeyRecord) {
  return {
    keyId: key.keyId,
    name: key.name,
    prefix: key.prefix,
    mode: key.mode,
    scopes: key.scopes,
    createdAt: key.createdAt.toISOString(),
    expiresAt: key.expiresAt?.toISOString() ?? null,
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
    createdByKeyId: key.createdByKeyId,
  };
}
