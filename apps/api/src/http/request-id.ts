import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { withLogContext } from '@leadgen/logger';

// A client's id is echoed only when it is short and plain, so it can't inject into logs or headers.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const requestId: RequestHandler = (req, res, next) => {
  const given = req.get('X-Request-Id');
  const id = given && SANE_REQUEST_ID.test(given) ? given : `req_${randomUUID().replace(/-/g, '')}`;
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  withLogContext({ requestId: id }, next);
};
