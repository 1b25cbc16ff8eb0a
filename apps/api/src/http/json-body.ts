import express, { type RequestHandler } from 'express';
import { errors } from '@leadgen/domain';

/**
 * JSON in: a body that is not application/json (or a +json type) is refused with 415 before it is
 * read; over the limit 413; malformed 400 (through the problem middleware).
 * Compressed bodies are refused (415 with Accept-Encoding: identity, RFC 9110 15.5.16): a valid
 * request is a few hundred bytes, so compression saves nothing, and inflating would spend CPU and
 * memory on whatever a client claims is gzip (docs/decisions/010).
 */
export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({ limit: limitBytes, type: () => true, strict: true, inflate: false });
  return (req, res, next) => {
    const mediaType = (req.get('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (mediaType !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(mediaType)) {
      next(errors.unsupportedMediaType());
      return;
    }
    const encoding = (req.get('Content-Encoding') ?? 'identity').trim().toLowerCase();
    if (encoding !== 'identity' && encoding !== '') {
      next(errors.unsupportedContentEncoding());
      return;
    }
    parse(req, res, next);
  };
}
