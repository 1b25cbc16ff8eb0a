import { randomBytes } from 'node:crypto';

// Public identifiers carry a type prefix (as Stripe's do) so a support ticket's id says what it is.
const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

function randomToken(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i]! % ALPHABET.length];
  return out;
}

export const newId = {
  account: () => `acc_${randomToken(20)}`,
  apiKeyId: () => `key_${randomToken(20)}`,
  job: () => `job_${randomToken(24)}`,
  resultSet: () => `rs_${randomToken(24)}`,
  /** the secret itself: 40 random characters (~206 bits) */
  apiKeySecret: () => `lg_live_${randomToken(40)}`,
};

export const ID_PATTERNS = {
  job: /^job_[0-9a-z]{24}$/,
  account: /^acc_[0-9a-z]{20}$/,
};
