import { ProviderError, type ProviderFailure } from '../lead-provider';

/**
 * A ProviderError that also keeps the upstream's own error code (google.rpc.Status `status`,
 * PDL `error.type`, ...), so an adapter can react to one specific refusal, e.g. an expired
 * page token answered with 400 INVALID_ARGUMENT.
 */
export class UpstreamError extends ProviderError {
  constructor(
    reason: ProviderFailure,
    message: string,
    upstreamStatus?: number,
    readonly upstreamCode?: string,
  ) {
    super(reason, message, upstreamStatus);
    this.name = 'UpstreamError';
  }
}

/** What an upstream said about a failure, read from its documented error body. */
export interface UpstreamErrorDescription {
  code?: string;
  message?: string;
  /** the body itself says the credentials were refused, whatever the status (Google's 400 API_KEY_INVALID) */
  credentialsRefused?: boolean;
  /** how long the upstream asked to wait before retrying, when the body says it (google.rpc.RetryInfo) */
  retryAfterMs?: number;
}

const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';

/**
 * google.rpc.RetryInfo's `retryDelay`, a google.protobuf.Duration, which JSON writes as seconds with
 * an "s" suffix ("3s", "0.5s"); null when no detail carries one.
 */
export function retryDelayOf(details: unknown): number | null {
  if (!Array.isArray(details)) return null;
  for (const detail of details) {
    if (detail === null || typeof detail !== 'object' || (detail as Record<string, unknown>)['@type'] !== RETRY_INFO) continue;
    const delay = (detail as Record<string, unknown>).retryDelay;
    const match = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay.trim()) : null;
    if (match) return Math.round(Number(match[1]) * 1000);
  }
  return null;
}

/**
 * google.rpc.ErrorInfo reasons that mean "this key may not call this API": Google answers a wrong
 * or expired key with 400 INVALID_ARGUMENT, not 401/403, and names the reason only in `details`.
 */
const REFUSED_KEY_REASONS = new Set([
  'API_KEY_INVALID',
  'API_KEY_EXPIRED',
  'API_KEY_SERVICE_BLOCKED',
  'API_KEY_HTTP_REFERRER_BLOCKED',
  'API_KEY_IP_ADDRESS_BLOCKED',
  'API_KEY_ANDROID_APP_BLOCKED',
  'API_KEY_IOS_APP_BLOCKED',
  'SERVICE_DISABLED',
  'CONSUMER_INVALID',
]);
// google.rpc.Code names and PDL error types that refuse the caller rather than the request
const REFUSED_CODES = new Set(['UNAUTHENTICATED', 'PERMISSION_DENIED', 'authentication_error']);

function reasonsOf(details: unknown): string[] {
  if (!Array.isArray(details)) return [];
  return details.flatMap((d) =>
    d !== null && typeof d === 'object' && typeof (d as Record<string, unknown>).reason === 'string'
      ? [(d as Record<string, string>).reason as string]
      : [],
  );
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * Reads the error shapes our upstreams document: google.rpc.Status
 * (`{ error: { code, status, message, details: [{ reason }] } }`), PDL (`{ status, error: { type, message } }`) and the
 * flat `{ error: "..." }` / `{ message }` others use. Anything else yields an empty description.
 */
export function describeErrorBody(body: unknown): UpstreamErrorDescription {
  if (body === null || typeof body !== 'object') return {};
  const record = body as Record<string, unknown>;
  const error = record.error;
  if (error !== null && typeof error === 'object') {
    const inner = error as Record<string, unknown>;
    const reasons = reasonsOf(inner.details);
    const code = text(inner.status) ?? text(inner.type);
    const refused = reasons.some((r) => REFUSED_KEY_REASONS.has(r)) || (code !== undefined && REFUSED_CODES.has(code));
    const reason = reasons[0];
    const retryAfterMs = retryDelayOf(inner.details);
    return {
      code: reason && code ? `${code}/${reason}` : code,
      message: text(inner.message),
      credentialsRefused: refused,
      ...(retryAfterMs === null ? {} : { retryAfterMs }),
    };
  }
  return { message: text(error) ?? text(record.message) };
}
