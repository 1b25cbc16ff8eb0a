import type { RequestHandler } from 'express';
import { logger } from '@leadgen/logger';

/** One line per request once it is answered; the request id comes from the log context. */
export const accessLog: RequestHandler = (req, res, next) => {
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    logger.http('request', {
      method: req.method,
      path: req.path,
      status: res.statusCode,
      ms: Number((process.hrtime.bigint() - started) / 1_000_000n),
    });
  });
  next();
};
