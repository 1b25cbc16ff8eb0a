/**
 * The one error vocabulary of the service. Each error carries its HTTP status (4xx: the client's
 * doing; 5xx: ours) and a stable snake_case `code` that clients switch on. The API's error middleware
 * turns an AppError into RFC 9457 Problem Details; anything else becomes a bare 500.
 */
export interface FieldProblem {
  /** JSON Pointer in RFC 9457's fragment form, e.g. "#/maxResults" */
  pointer: string;
  detail: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail: string,
    /** extra members of the problem body, e.g. { required, available } */
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'AppError';
  }
}

export const errors = {
  validation: (problems: FieldProblem[]) =>
    new AppError(400, 'validation_failed', 'Your request is not valid', `${problems.length} problem(s) in the request`, {
      errors: problems,
    }),
  malformedJson: () => new AppError(400, 'malformed_json', 'Malformed JSON', 'The request body is not valid JSON'),
  malformedPath: () =>
    new AppError(400, 'malformed_path', 'Malformed path', 'The path holds a percent-escape that does not decode to UTF-8'),
  /** The HTTP message itself is broken (framing, header syntax); answered by the server's clientError handler. */
  malformedRequest: () => new AppError(400, 'malformed_request', 'Malformed request', 'The HTTP request is malformed'),
  headersTooLarge: () =>
    new AppError(431, 'headers_too_large', 'Request header fields too large', 'The request headers are larger than the server accepts'),
  requestTimeout: () => new AppError(408, 'request_timeout', 'Request timeout', 'The request was not received in time'),
  expectationFailed: () =>
    new AppError(417, 'expectation_failed', 'Expectation failed', 'The only Expect the server meets is 100-continue'),
  unsupportedMediaType: () => new AppError(415, 'unsupported_media_type', 'Unsupported media type', 'Send the body as application/json'),
  // RFC 9110 15.5.16: a 415 for a content coding names the codings accepted, in Accept-Encoding.
  unsupportedContentEncoding: () =>
    new AppError(
      415,
      'unsupported_content_encoding',
      'Unsupported content encoding',
      'Send the body uncompressed (Content-Encoding: identity)',
      {},
      {
        'Accept-Encoding': 'identity',
      },
    ),
  suppressionLimit: (limit: number, held: number) =>
    new AppError(
      409,
      'suppression_limit',
      'Suppression list full',
      `The suppression list may hold ${limit} entries; it holds ${held}, and this call would go past that`,
      { limit, held },
    ),
  payloadTooLarge: (limit: string) =>
    new AppError(413, 'payload_too_large', 'Payload too large', `The request body is larger than ${limit}`),
  unauthorized: (detail: string) =>
    new AppError(401, 'unauthorized', 'Unauthorized', detail, {}, { 'WWW-Authenticate': 'Bearer realm="leadgen"' }),
  idempotencyKeyMissing: () =>
    new AppError(
      400,
      'idempotency_key_missing',
      'Idempotency-Key header missing',
      'POST /api/v1/leads/generate needs an Idempotency-Key header',
    ),
  idempotencyKeyInvalid: () =>
    new AppError(
      400,
      'idempotency_key_invalid',
      'Idempotency-Key header invalid',
      'The Idempotency-Key must be 1 to 255 printable ASCII characters',
    ),
  idempotencyKeyReused: () =>
    new AppError(
      422,
      'idempotency_key_reused',
      'Idempotency-Key reused',
      'This Idempotency-Key was already used with a different request body',
    ),
  insufficientCredits: (required: number, available: number) =>
    new AppError(
      402,
      'insufficient_credits',
      'Insufficient credits',
      `This request needs ${required} credits; ${available} are available`,
      {
        required,
        available,
      },
    ),
  jobNotFound: () => new AppError(404, 'job_not_found', 'Job not found', 'No job with this id exists for your account'),
  /** The retention sweep deleted the job's leads (LEAD_RETENTION_DAYS); the job itself is still there. */
  leadsExpired: (expiredAt: Date) =>
    new AppError(
      410,
      'leads_expired',
      'Leads expired',
      `This job's leads were deleted on ${expiredAt.toISOString()} under the data retention policy; the job, its counts and its charge remain`,
      { leadsExpiredAt: expiredAt.toISOString() },
    ),
  jobNotCancellable: (status: string) =>
    new AppError(409, 'job_not_cancellable', 'Job not cancellable', `The job already finished with status ${status}`, {
      jobStatus: status,
    }),
  // area searches (decision 039)
  quoteNotFound: () => new AppError(404, 'quote_not_found', 'Quote not found', 'No quote with this id exists for your account'),
  quoteExpired: (expiresAt: string) =>
    new AppError(422, 'quote_expired', 'Quote expired', `The quote expired at ${expiresAt}; ask for a new one`, { expiresAt }),
  areaPlaceNotFound: (place: string) =>
    new AppError(422, 'area_place_not_found', 'Place not found', `The source knows no place named "${place}" with a viewport`, {
      errors: [{ pointer: '#/area/place', detail: 'no place with this name was found' }],
    }),
  areaTooLarge: (tiles: number) =>
    new AppError(
      422,
      'area_too_large',
      'Area too large to quote',
      `Quoting this area would search more than ${tiles} tiles; quote a smaller area, or start the area batch without a quote`,
      { maxTiles: tiles },
    ),
  areaEmpty: () =>
    new AppError(422, 'area_empty', 'Nothing to search', 'The quote found no place inside the area: a batch from it would search nothing'),
  batchNotFound: () => new AppError(404, 'batch_not_found', 'Batch not found', 'No batch with this id exists for your account'),
  batchNotCancellable: (status: string) =>
    new AppError(409, 'batch_not_cancellable', 'Batch not cancellable', `The batch already finished with status ${status}`, {
      batchStatus: status,
    }),
  notFound: () => new AppError(404, 'not_found', 'Not found', 'No such endpoint'),
  methodNotAllowed: (allow: string[]) =>
    new AppError(405, 'method_not_allowed', 'Method not allowed', `Allowed: ${allow.join(', ')}`, {}, { Allow: allow.join(', ') }),
  rateLimited: (retryAfterSeconds: number, detail = `Rate limit exceeded; retry in ${retryAfterSeconds} s`) =>
    new AppError(
      429,
      'rate_limited',
      'Too many requests',
      detail,
      {},
      {
        'Retry-After': String(retryAfterSeconds),
      },
    ),
  /** More of the account's requests in flight in this API process than API_IN_FLIGHT_PER_ACCOUNT (decision 050). */
  tooManyInFlight: (limit: number, retryAfterSeconds = 1) =>
    new AppError(
      429,
      'too_many_in_flight',
      'Too many requests in flight',
      `The account already has ${limit} requests in progress here; retry in ${retryAfterSeconds} s, or wait for one of them to finish`,
      { limit },
      { 'Retry-After': String(retryAfterSeconds) },
    ),
  serviceUnavailable: (detail: string) =>
    new AppError(503, 'service_unavailable', 'Service unavailable', detail, {}, { 'Retry-After': '5' }),
};
