/**
 * The shape of a JSON body read from its raw bytes before JSON.parse builds anything: how deep it
 * nests and how many values its containers hold, stopping at the first limit crossed. A 2,000,000-level
 * array or a 300,000-entry upload is refused after reading as far as the limit, with no tree built,
 * validated or normalised. Bytes, not characters: every byte of a multi-byte UTF-8 sequence is 0x80 or
 * above, so the structural characters (all ASCII) are never mistaken inside one.
 */
export interface JsonShapeLimits {
  /** nesting levels of arrays and objects */
  maxDepth: number;
  /** values in all arrays and objects together (commas, so a container of n values counts n - 1) */
  maxEntries: number;
}

export type JsonShapeProblem = 'depth' | 'entries' | null;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

export function jsonShapeProblem(body: Uint8Array, limits: JsonShapeLimits): JsonShapeProblem {
  let depth = 0;
  let entries = 0;
  let inString = false;
  for (let i = 0; i < body.length; i += 1) {
    const byte = body[i]!;
    if (inString) {
      if (byte === BACKSLASH) i += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      depth += 1;
      if (depth > limits.maxDepth) return 'depth';
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) depth -= 1;
    else if (byte === COMMA) {
      entries += 1;
      if (entries > limits.maxEntries) return 'entries';
    }
  }
  return null;
}
