import type { ErrorRequestHandler, Response } from 'express';
import { AppError, errors } from '@leadgen/domain';
import { logger } from '@leadgen/logger';

/** RFC 9457 Problem Details. `type` is a stable URN per code; docs/errors.md explains each. */
export function sendProblem(res: Response, error: AppError): void {
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res
    .status(error.status)
    .type('application/problem+json')
    .send(
      JSON.stringify({
        type: `urn:leadgen:problem:${error.code}`,
        title: error.title,
        status: error.status,
        detail: error.message,
        code: error.code,
        requestId: res.locals.requestId as string | undefined,
        ...error.extra,
      }),
    );
}

// Failures of PostgreSQL or Redis reaching us: the client may retry, so 503 rather than 500.
function isInfrastructureFailure(error: unknown): boolean {
  const e = error as { code?: string; name?: string; message?: string; cause?: unknown };
  const code = e?.code ?? '';
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'P1001', 'P1002', 'P1017', 'P2024'].includes(code)) return true;
  // SQLSTATE classes 08 (connection exception) and 57P (admin shutdown, crash shutdown, cannot connect now).
  if (/^(08|57P)/.test(code)) return true;
  if (/Connection terminated|timeout exceeded when trying to connect/i.test(String(e?.message))) return true;
  if (e?.name === 'DriverAdapterError' && /connect|terminat|timeout/i.test(String(e.message))) return true;
  return e?.cause !== undefined && e.cause !== error && isInfrastructureFailure(e.cause);
}

/** Body-parser's failures, which carry a `type`, map onto our vocabulary. */
function fromBodyParser(error: { type?: string; limit?: number }): AppError | null {
  switch (error.type) {
    case 'entity.too.large':
      return errors.payloadTooLarge('16 KiB');
    case 'entity.parse.failed':
      return errors.malformedJson();
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return errors.unsupportedMediaType();
    case 'request.aborted':
    case 'request.size.invalid':
      return errors.malformedJson();
    default:
      return null;
  }
}

export const problemMiddleware: ErrorRequestHandler = (error, _req, res, _next) => {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const known = error instanceof AppError ? error : fromBodyParser(error as { type?: string });
  if (known) {
    sendProblem(res, known);
    return;
  }
  if (isInfrastructureFailure(error)) {
    logger.warn('infrastructure unavailable', { error });
    sendProblem(res, errors.serviceUnavailable('A backing service is unavailable; retry shortly'));
    return;
  }
  logger.error('unhandled error', { error });
  res
    .status(500)
    .type('application/problem+json')
    .send(
      JSON.stringify({
        type: 'about:blank',
        title: 'Internal Server Error',
        status: 500,
        // A fixed sentence: the error's own message is internal and stays in the log.
        detail: 'An unexpected error occurred; quote the requestId if you contact support',
        code: 'internal_error',
        requestId: res.locals.requestId as string | undefined,
      }),
    );
};
