import { AppError } from './errors';

/**
 * What an API key may do (docs/decisions/036-keys-ledger-cors-and-served-docs.md). Every endpoint that takes a
 * key names the one scope it needs (apps/api/src/http/route-table.ts); a key without it gets 403
 * `insufficient_scope`. Never rename one: keys hold them by name in api_keys.scopes.
 */
export const API_KEY_SCOPES = ['read', 'generate', 'webhooks', 'monitors', 'suppressions', 'keys'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export const SCOPE_MEANINGS: Record<ApiKeyScope, string> = {
  read: 'read jobs, batches, leads and their exports, the account, its ledger, usage and audit trail, webhooks, monitors, suppressions',
  generate: 'start and cancel jobs and batches, quote area searches',
  webhooks: 'create, change, delete, rotate, ping and retry webhook endpoints and deliveries',
  monitors: 'create, change, delete and run monitors (their runs spend credits)',
  suppressions: "add to and remove from the account's suppression list",
  keys: "create, list, rename, expire and revoke the account's API keys",
};

/** live: the account itself; test: its test account (the sandbox always, test credits, nothing of the live account's seen). */
export const API_KEY_MODES = ['live', 'test'] as const;
export type ApiKeyMode = (typeof API_KEY_MODES)[number];

/**
 * What a test account (the live account's twin, which holds its test keys) is granted when it is made: test credits,
 * so its jobs reserve and charge as live ones would (their ledger shows what a job would cost) without touching
 * the live account's credits.
 */
export const TEST_ACCOUNT_CREDITS = 1_000_000_000;

/** An account holds at most this many live (unrevoked, unexpired) keys: one more is 409 api_key_limit. */
export const API_KEYS_MAX_PER_ACCOUNT = 100;

export const scopeErrors = {
  insufficientScope: (needed: ApiKeyScope) =>
    new AppError(
      403,
      'insufficient_scope',
      'Insufficient scope',
      `This API key lacks the scope "${needed}" this endpoint needs`,
      { requiredScope: needed },
      { 'WWW-Authenticate': `Bearer realm="leadgen", error="insufficient_scope", scope="${needed}"` },
    ),
  scopeNotHeld: (scopes: ApiKeyScope[]) =>
    new AppError(
      403,
      'scope_not_held',
      'Scope not held',
      `A key can only grant scopes it holds itself; this key does not hold ${scopes.map((s) => `"${s}"`).join(', ')}`,
      { scopes },
    ),
  testKeyMakesTestKeys: () =>
    new AppError(403, 'test_mode_unsupported', 'Not available to test keys', 'A test key makes only test keys; use a live key'),
  apiKeyNotFound: () => new AppError(404, 'api_key_not_found', 'API key not found', 'No API key with this id belongs to your account'),
  apiKeyLimit: (limit: number) =>
    new AppError(409, 'api_key_limit', 'Too many API keys', `The account holds ${limit} live keys already; revoke one first`, { limit }),
};

/**
 * The scopes a new key gets, checked against the creating key's: by default the creator's own; never one the
 * creator lacks (403 scope_not_held). A test key makes only test keys.
 */
export function scopesForNewKey(
  creator: { scopes: readonly ApiKeyScope[]; mode: ApiKeyMode },
  asked: { scopes?: readonly ApiKeyScope[]; mode: ApiKeyMode },
): ApiKeyScope[] {
  if (creator.mode === 'test' && asked.mode === 'live') throw scopeErrors.testKeyMakesTestKeys();
  const wanted = asked.scopes ?? creator.scopes;
  const missing = wanted.filter((scope) => !creator.scopes.includes(scope));
  if (missing.length > 0) throw scopeErrors.scopeNotHeld(missing);
  // In API_KEY_SCOPES order, each once: the key's scopes read the same however they were asked for.
  return API_KEY_SCOPES.filter((scope) => wanted.includes(scope));
}
