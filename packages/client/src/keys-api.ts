import type { ApiKey, ApiKeyChange, ApiKeyPage, ApiKeyWithSecret, NewApiKey } from './api-bodies.js';
import { sendJson, type HttpOptions, type RequestOptions } from './http.js';
import { items, pages, query, seg } from './query-string.js';
import type { WithMeta } from './response-meta.js';

const API = '/api/v1';

/** The account's API keys (the calling key needs the `keys` scope): scopes, test keys, expiry, revocation. */
export class KeysApi {
  constructor(private readonly http: HttpOptions) {}

  /** Makes a key; its secret (`apiKey`) is in this answer only. Scopes default to the calling key's, never beyond them. */
  create(key: NewApiKey = {}, options: RequestOptions = {}): Promise<WithMeta<ApiKeyWithSecret>> {
    return sendJson<ApiKeyWithSecret>(this.http, { ...options, method: 'POST', path: `${API}/keys`, body: key });
  }

  /** One page of the account's keys, newest first. */
  page(filter: KeyFilter & { cursor?: string } = {}, options: RequestOptions = {}): Promise<WithMeta<ApiKeyPage>> {
    const { includeRevoked, ...rest } = filter;
    const path = `${API}/keys${query({ ...rest, includeRevoked: includeRevoked === undefined ? undefined : String(includeRevoked) })}`;
    return sendJson<ApiKeyPage>(this.http, { ...options, method: 'GET', path });
  }

  /** Every key, newest first, page by page as you read. */
  list(filter: KeyFilter = {}, options: RequestOptions = {}): AsyncGenerator<ApiKey> {
    return items(pages((cursor) => this.page({ ...filter, cursor }, options)));
  }

  get(keyId: string, options: RequestOptions = {}): Promise<WithMeta<ApiKey>> {
    return sendJson<ApiKey>(this.http, { ...options, method: 'GET', path: `${API}/keys/${seg(keyId)}` });
  }

  /** Renames a key or moves its expiry (null: never). */
  update(keyId: string, change: ApiKeyChange, options: RequestOptions = {}): Promise<WithMeta<ApiKey>> {
    return sendJson<ApiKey>(this.http, { ...options, method: 'PATCH', path: `${API}/keys/${seg(keyId)}`, body: change });
  }

  /** Revokes a key: refused everywhere from the next request on. Idempotent. */
  revoke(keyId: string, options: RequestOptions = {}): Promise<WithMeta<ApiKey>> {
    return sendJson<ApiKey>(this.http, { ...options, method: 'DELETE', path: `${API}/keys/${seg(keyId)}` });
  }
}

/** Which keys to list. */
export type KeyFilter = {
  mode?: 'live' | 'test';
  includeRevoked?: boolean;
  limit?: number;
};
