import express, { type RequestHandler } from 'express';
import { errors } from '@leadgen/domain';

/**
 * JSON in: a body that is not application/json (or a +json type) is refused with 415 before it is
 * read; over the limit 413; malformed 400 (through the problem middleware).
 */
export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({ limit: limitBytes, type: () => true, strict: true });
  return (req, res, next) => {
    const mediaType = (req.get('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (mediaType !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(mediaType)) {
      next(errors.unsupportedMediaType());
      return;
    }
    parse(req, res, next);
  };
}
