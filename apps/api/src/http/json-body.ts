import express, { type Request, type RequestHandler } from 'express';
import { errors } from '@leadgen/domain';
import { jsonShapeProblem, type JsonShapeLimits } from './json-shape';

/** Nesting any body of ours may have: a generate request nests 3 levels, every other body 2. */
export const MAX_JSON_DEPTH = 32;

/** Error types the body parser passes on from the shape check (problem.ts maps them). */
export const SHAPE_ERROR_TYPES = { depth: 'json.too_deep', entries: 'json.too_many_entries' } as const;

/**
 * JSON in: a body that is not application/json (or a +json type) is refused with 415 before it is
 * read; over the limit 413 while it streams; nested deeper than MAX_JSON_DEPTH or holding more entries
 * than the route takes 400 before it is parsed; malformed 400 (through the problem middleware).
 * Compressed bodies are refused (415 with Accept-Encoding: identity, RFC 9110 15.5.16): a valid
 * request is a few hundred bytes, so compression saves nothing, and inflating would spend CPU and
 * memory on whatever a client claims is gzip (docs/decisions/010).
 */
/** body-parser's `verify`: the body's depth and entry count, read from its bytes before JSON.parse sees them (json-shape.ts). */
export function shapeCheck(limits: JsonShapeLimits) {
  return (_req: unknown, _res: unknown, body: Buffer): void => {
    const problem = jsonShapeProblem(body, limits);
    if (problem) throw Object.assign(new Error(`JSON body: too many ${problem}`), { type: SHAPE_ERROR_TYPES[problem], limits });
  };
}

export function jsonBody(limitBytes: number, shape: Partial<JsonShapeLimits> = {}): RequestHandler {
  const verify = shapeCheck({ maxDepth: shape.maxDepth ?? MAX_JSON_DEPTH, maxEntries: shape.maxEntries ?? limitBytes });
  const parse = express.json({ limit: limitBytes, type: () => true, strict: true, inflate: false, verify });
  return (req, res, next) => {
    const refused = unreadableJson(req);
    if (refused) {
      next(refused);
      return;
    }
    parse(req, res, next);
  };
}

/**
 * Why a body is refused before a byte of it is read (415), or null: its media type is not application/json (or a
 * +json type), or it is compressed. The JSON parsers of the route table (jsonBody, bulkJsonBody) both ask it.
 */
export function unreadableJson(req: Request): Error | null {
  const mediaType = (req.get('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(mediaType)) return errors.unsupportedMediaType();
  const encoding = (req.get('Content-Encoding') ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== '') return errors.unsupportedContentEncoding();
  return null;
}
