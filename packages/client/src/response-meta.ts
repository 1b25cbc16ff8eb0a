// What every answer of the API says besides its body: the request id to quote to support, the rate
// limit left, and whether an Idempotency-Key replayed an earlier answer.

/** IETF RateLimit / RateLimit-Policy, as the API sends them (`"read";r=1199;t=42`, `"read";q=1200;w=60`). */
export interface RateLimitInfo {
  /** the policy's name, e.g. `read` or `generate` */
  policy: string | null;
  /** requests per window (`q` of RateLimit-Policy) */
  limit: number | null;
  /** requests left in the window (`r`) */
  remaining: number | null;
  /** seconds until the window resets (`t`) */
  resetSeconds: number | null;
}

export interface ResponseMeta {
  status: number;
  /** X-Request-Id: quote it to support */
  requestId: string | null;
  rateLimit: RateLimitInfo | null;
  /** true when the answer is the replay of an earlier call with the same Idempotency-Key */
  replayed: boolean;
  /** Retry-After in milliseconds, when sent */
  retryAfterMs: number | null;
}

/** A body of the API with the answer's metadata beside it (`meta` is not enumerable: JSON.stringify leaves it out). */
export type WithMeta<T> = T & { readonly meta: ResponseMeta };

function param(header: string | null, key: string): string | null {
  if (!header) return null;
  const match = new RegExp(`(?:^|;)\\s*${key}=([^;,\\s]+)`).exec(header);
  return match ? match[1]!.replace(/^"|"$/g, '') : null;
}
const numberOrNull = (text: string | null) => (text !== null && Number.isFinite(Number(text)) ? Number(text) : null);

export function responseMeta(response: Response): ResponseMeta {
  const limit = response.headers.get('RateLimit');
  const policy = response.headers.get('RateLimit-Policy');
  const retryAfter = response.headers.get('Retry-After');
  return {
    status: response.status,
    requestId: response.headers.get('X-Request-Id'),
    rateLimit:
      limit || policy
        ? {
            policy: (/^\s*"([^"]+)"/.exec(limit ?? policy ?? '') ?? [])[1] ?? null,
            limit: numberOrNull(param(policy, 'q')),
            remaining: numberOrNull(param(limit, 'r')),
            resetSeconds: numberOrNull(param(limit, 't')),
          }
        : null,
    replayed: response.headers.get('Idempotent-Replayed') === 'true',
    retryAfterMs: retryAfter !== null && Number.isFinite(Number(retryAfter)) ? Number(retryAfter) * 1000 : null,
  };
}

/** The body with its metadata attached, not enumerable so that serialising the body is unchanged. */
export function withMeta<T extends object>(body: T, meta: ResponseMeta): WithMeta<T> {
  Object.defineProperty(body, 'meta', { value: meta, enumerable: false, configurable: true });
  return body as WithMeta<T>;
}
