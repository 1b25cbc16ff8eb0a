import type { RequestHandler } from 'express';
import { errors } from '@leadgen/domain';

// Node's own test for an expectation it meets itself (it sends 100 Continue and never asks us).
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/**
 * Two requests Node would refuse itself, with a bare answer: an HTTP/1.1 request without Host
 * (RFC 9112 3.2: 400) and an Expect it cannot meet (RFC 9110 10.1.1: 417). start-api.ts hands them to
 * Express instead (requireHostHeader off, checkExpectation routed to the app), so they are answered
 * here as Problem Details with a request id and the security headers.
 */
export const protocolChecks: RequestHandler = (req, res, next) => {
  if (req.httpVersionMajor === 1 && req.httpVersionMinor === 1 && req.headers.host === undefined) {
    res.setHeader('Connection', 'close');
    throw errors.malformedRequest();
  }
  const expect = req.headers.expect;
  if (expect !== undefined && !CONTINUE.test(expect)) throw errors.expectationFailed();
  next();
};
