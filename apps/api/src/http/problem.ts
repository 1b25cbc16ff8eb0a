import type { ErrorRequestHandler, Response } from 'express';
import { AppError, errors } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { isInfrastructureFailure } from './infrastructure-errors';
import { SHAPE_ERROR_TYPES } from './json-body';
import type { JsonShapeLimits } from './json-shape';

/** RFC 9457 Problem Details. `type` is a stable URN per code; docs/errors.md explains each. */
export function problemDocument(error: AppError, requestId: string | undefined): string {
  return JSON.stringify({
    type: `urn:leadgen:problem:${error.code}`,
    title: error.title,
    status: error.status,
    detail: error.message,
    code: error.code,
    requestId,
    ...error.extra,
  });
}

export function sendProblem(res: Response, error: AppError): void {
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res
    .status(error.status)
    .type('application/problem+json')
    .send(problemDocument(error, res.locals.requestId as string | undefined));
}

/** Body-parser's failures, which carry a `type`, map onto our vocabulary. */
function fromBodyParser(error: { type?: string; limit?: number; limits?: JsonShapeLimits }): AppError | null {
  switch (error.type) {
    case SHAPE_ERROR_TYPES.depth:
      return errors.validation([{ pointer: '#', detail: `the body nests deeper than ${error.limits?.maxDepth} levels` }]);
    case SHAPE_ERROR_TYPES.entries:
      return errors.validation([{ pointer: '#', detail: `the body holds more than ${error.limits?.maxEntries} entries` }]);
    case 'entity.too.large':
      return errors.payloadTooLarge(
        error.limit !== undefined && error.limit >= 1024 * 1024
          ? `${error.limit / 1024 / 1024} MiB`
          : `${(error.limit ?? 16384) / 1024} KiB`,
      );
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

/** Errors Express and its router raise with a 4xx `status` of their own, e.g. a param that is not UTF-8. */
function fromFramework(error: { status?: unknown; statusCode?: unknown }): AppError | null {
  const status = Number(error.status ?? error.statusCode);
  if (error instanceof URIError) return errors.malformedPath();
  if (status === 400) return errors.malformedRequest();
  return null;
}

export const problemMiddleware: ErrorRequestHandler = (error, _req, res, _next) => {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const known =
    error instanceof AppError ? error : (fromBodyParser(error as { type?: string }) ?? fromFramework(error as { status?: unknown }));
  if (known) {
    sendProblem(res, known);
    return;
  }
  if (isInfrastructureFailure(error)) {
    logger.warn('infrastructure unavailable', { error: (error as Error).message });
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
