import { ProviderError, type ProviderFailure } from '../provider';

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
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * Reads the error shapes our upstreams document: google.rpc.Status
 * (`{ error: { code, status, message } }`), PDL (`{ status, error: { type, message } }`) and the
 * flat `{ error: "..." }` / `{ message }` others use. Anything else yields an empty description.
 */
export function describeErrorBody(body: unknown): UpstreamErrorDescription {
  if (body === null || typeof body !== 'object') return {};
  const record = body as Record<string, unknown>;
  const error = record.error;
  if (error !== null && typeof error === 'object') {
    const inner = error as Record<string, unknown>;
    return { code: text(inner.status) ?? text(inner.type), message: text(inner.message) };
  }
  return { message: text(error) ?? text(record.message) };
}
