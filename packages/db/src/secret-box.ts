import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/*
 * Webhook signing secrets are stored sealed with AES-256-GCM (Node's crypto), so a database dump or a
 * read replica does not give away the means to forge our webhooks (docs/decisions/019-data-protection.md).
 * A sealed value reads `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url): the key id is the first bytes
 * of the key's sha256, so a value names the key that opens it and several keys can be in use during a
 * rotation. The row it belongs to is bound as additional data, so a sealed value copied into another
 * row does not open there.
 */

/** The development key, used when SECRETS_ENCRYPTION_KEY is unset outside production: it protects nothing. */
export const DEVELOPMENT_SECRETS_KEY = Buffer.from('leadgen-development-only-key-32b', 'utf8');

export const DEVELOPMENT_SECRETS_KEY_WARNING =
  'SECRETS_ENCRYPTION_KEY is unset: webhook secrets are sealed with the published development key, which protects nothing (required in production)';

const VERSION = 'v1';
const IV_BYTES = 12;

function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 8);
}

export class SecretBox {
  private readonly keys: Array<{ id: string; key: Buffer }>;

  /** `keys`: 32 bytes each, newest first; the first seals, any of them opens. */
  constructor(keys: readonly Buffer[]) {
    if (keys.length === 0) throw new Error('a secret box needs at least one key');
    for (const key of keys) if (key.length !== 32) throw new Error('secret keys are 32 bytes (AES-256)');
    this.keys = keys.map((key) => ({ id: keyId(key), key }));
  }

  /** Seals `plain` for the row `context` names (e.g. `webhook_endpoints:<id>`) under the newest key. */
  seal(plain: string, context: string): string {
    const { id, key } = this.keys[0]!;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, id, iv.toString('base64url'), sealed.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  /** Whether `stored` is sealed under the newest key already (secrets:rotate skips it). */
  isCurrent(stored: string): boolean {
    return stored.startsWith(`${VERSION}.${this.keys[0]!.id}.`);
  }

  /** Whether `stored` is sealed at all: a value from before secrets were sealed is not. */
  static isSealed(stored: string): boolean {
    return stored.startsWith(`${VERSION}.`);
  }

  /**
   * The secret sealed in `stored` for the row `context` names. A value that is not sealed (written
   * before the migration that seals them ran) is given back as it is. Throws when no key opens it: a
   * key was dropped before `secrets:rotate` re-sealed what it had sealed.
   */
  open(stored: string, context: string): string {
    if (!SecretBox.isSealed(stored)) return stored;
    const [, id, iv, data, tag] = stored.split('.');
    if (!id || !iv || data === undefined || !tag) throw new Error('a sealed secret is malformed');
    const candidates = [...this.keys.filter((k) => k.id === id), ...this.keys.filter((k) => k.id !== id)];
    for (const { key } of candidates) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        // another key, or the wrong row: try the next key
      }
    }
    throw new Error(`no key in SECRETS_ENCRYPTION_KEY opens a stored secret (key id ${id})`);
  }
}

/** Where each sealed column's row is named: the additional data its values are bound to. */
export const secretContext = {
  endpoint: (endpointId: string) => `webhook_endpoints:${endpointId}`,
  accountDefault: (accountId: string) => `account_webhook_secrets:${accountId}`,
};

/**
 * A box for a process that holds no SECRETS_ENCRYPTION_KEY because it never needs one (a worker that
 * delivers no webhooks): sealing or opening is a bug, refused rather than done with the development key.
 */
export class LockedSecretBox extends SecretBox {
  constructor() {
    super([DEVELOPMENT_SECRETS_KEY]);
  }
  override seal(_plain: string, _context: string): string {
    throw new Error(LOCKED_MESSAGE);
  }
  override open(_stored: string, _context: string): string {
    throw new Error(LOCKED_MESSAGE);
  }
  override isCurrent(_stored: string): boolean {
    throw new Error(LOCKED_MESSAGE);
  }
}
const LOCKED_MESSAGE =
  'this process reads no SECRETS_ENCRYPTION_KEY (only the API, webhook workers, migrations and admin CLI seal or open webhook secrets)';
