import express, { type Request, type RequestHandler } from 'express';
import { errors } from '@leadgen/domain';
import { authenticatedAccount } from './authenticate';
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
    const accountId = authenticatedAccount(res.locals)?.id;
    if (accountId !== undefined) {
      if (BULK_AT_WORK.has(accountId)) {
        next(
          errors.rateLimited(
            BUSY_RETRY_AFTER_SECONDS,
            'an upload of this account is being handled already; retry when it has been answered',
          ),
        );
        return;
      }
      BULK_AT_WORK.add(accountId);
      let done = false;
      const free = () => {
        if (done) return;
        done = true;
        BULK_AT_WORK.delete(accountId);
      };
      res.once('finish', free);
      res.once('close', free);
    }
    read(req, res, next);
  };
}

/**
 * The accounts with a bulk body being read or handled in this process: one at a time each, refused before its bytes
 * are read (issue 31, finding 3; decision 035 amended). Before, an account's second upload was read whole (megabytes)
 * and then refused because its first was still being parsed; as the first is now written at a pace (it yields to other
 * accounts' requests), that window is seconds long. The answer comes before the body is read, so it closes the
 * connection lingering (unread-body.ts): the refused upload costs its first few hundred kB, not all of it.
 */
const BULK_AT_WORK = new Set<string>();
const BUSY_RETRY_AFTER_SECONDS = 2;

/** The bytes bulkJsonBody kept (none for a request without a body). */
export function bulkBodyBytes(req: Request): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}
