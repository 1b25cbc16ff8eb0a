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
  return jsonShape(body, limits).problem;
}

/** The problem, and the entries counted up to it: the body's commas (so at most `entries + 1` values, when none). */
export function jsonShape(body: Uint8Array, limits: JsonShapeLimits): { problem: JsonShapeProblem; entries: number } {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  let depth = 0;
  let entries = 0;
  for (let i = 0; i < bytes.length; i += 1) {
    const byte = bytes[i]!;
    if (byte === QUOTE) {
      // Most of a body is inside strings: jump to each quote (indexOf, native) and skip the escaped ones,
      // those after an odd run of backslashes (the run cannot reach back past the opening quote).
      for (;;) {
        const end = bytes.indexOf(QUOTE, i + 1);
        if (end === -1) return { problem: null, entries };
        let backslashes = 0;
        while (bytes[end - 1 - backslashes] === BACKSLASH) backslashes += 1;
        i = end;
        if (backslashes % 2 === 0) break;
      }
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      depth += 1;
      if (depth > limits.maxDepth) return { problem: 'depth', entries };
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) depth -= 1;
    else if (byte === COMMA) {
      entries += 1;
      if (entries > limits.maxEntries) return { problem: 'entries', entries };
    }
  }
  return { problem: null, entries };
}
