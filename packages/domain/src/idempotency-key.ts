import { errors } from './errors';

const MAX_KEY_LENGTH = 255;
// A structured-field string holds printable ASCII only; anything else (bytes >= 0x80 arrive as Latin-1) is refused.
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

/**
 * The IETF Idempotency-Key draft writes the value as a structured-field string ("abc");
 * the quoted and the bare form of one key are the same key.
 */
export function parseIdempotencyKey(header: string | undefined): string {
  if (header === undefined) throw errors.idempotencyKeyMissing();
  let key = header.trim();
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = key.slice(1, -1);
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !PRINTABLE_ASCII.test(key)) throw errors.idempotencyKeyInvalid();
  return key;
}
