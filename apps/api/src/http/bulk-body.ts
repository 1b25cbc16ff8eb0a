import express, { type Request, type RequestHandler } from 'express';
import { errors } from '@leadgen/domain';
import { unreadableJson } from './json-body';

/**
 * A bulk JSON body (an endpoint declaring `maxEntries`: the suppression uploads): refused as jsonBody refuses a
 * body (415 for another media type or any compression, 413 over the limit while it streams), but kept as bytes.
 * Its handler charges it by its size and parses it off the event loop (issue 31, finding 3); parsing megabytes
 * here would stall every other request of the process.
 */
export function bulkJsonBody(limitBytes: number): RequestHandler {
  const read = express.raw({ limit: limitBytes, type: () => true, inflate: false });
  return (req, res, next) => {
    const refused = unreadableJson(req);
    if (refused) {
      next(refused);
      return;
    }
    // As the JSON parser: JSON is UTF-8 (RFC 8259 section 8.1), any other charset named is refused.
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.get('Content-Type') ?? '')?.[1]?.toLowerCase();
    if (charset !== undefined && !charset.startsWith('utf-')) {
      next(errors.unsupportedMediaType());
      return;
    }
    read(req, res, next);
  };
}

/** The bytes bulkJsonBody kept (none for a request without a body). */
export function bulkBodyBytes(req: Request): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}
