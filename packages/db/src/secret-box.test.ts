import { randomBytes } from 'node:crypto';
import { LockedSecretBox, SecretBox } from './secret-box';

describe('SecretBox (webhook secrets at rest)', () => {
  const secret = 'whsec_' + randomBytes(24).toString('base64');

  it('when a secret is sealed, then the stored text holds nothing of it and opens back for its row only', () => {
    const box = new SecretBox([randomBytes(32)]);
    const sealed = box.seal(secret, 'webhook_endpoints:we_1');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('whsec_');
    expect(box.seal(secret, 'webhook_endpoints:we_1')).not.toBe(sealed);
    expect(box.open(sealed, 'webhook_endpoints:we_1')).toBe(secret);
    expect(() => box.open(sealed, 'webhook_endpoints:we_2')).toThrow(/no key/);
  });

  it('when a key is rotated, then values under the old key still open while it is listed, and new ones use the new key', () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const sealedOld = new SecretBox([oldKey]).seal(secret, 'c');
    const rotated = new SecretBox([newKey, oldKey]);
    expect(rotated.open(sealedOld, 'c')).toBe(secret);
    expect(rotated.isCurrent(sealedOld)).toBe(false);
    expect(rotated.isCurrent(rotated.seal(secret, 'c'))).toBe(true);
    expect(() => new SecretBox([newKey]).open(sealedOld, 'c')).toThrow(/no key/);
  });

  it('when a value was stored before sealing existed, then it is read as it is; a tampered one is refused', () => {
    const box = new SecretBox([randomBytes(32)]);
    expect(box.open(secret, 'c')).toBe(secret);
    expect(SecretBox.isSealed(secret)).toBe(false);
    const sealed = box.seal(secret, 'c');
    const parts = sealed.split('.');
    // One bit of the ciphertext flipped (writing a fixed byte changed nothing when it already was that byte: 1 run in 256).
    const tampered = Buffer.from(parts[3]!, 'base64url');
    tampered[0] = tampered[0]! ^ 1;
    parts[3] = tampered.toString('base64url');
    expect(() => box.open(parts.join('.'), 'c')).toThrow();
    expect(() => new SecretBox([randomBytes(16)])).toThrow(/32 bytes/);
  });

  it('when a process that holds no key (a worker that delivers no webhooks) seals or opens, then it is refused, never done with the development key', () => {
    const sealed = new SecretBox([randomBytes(32)]).seal(secret, 'c');
    const locked = new LockedSecretBox();
    expect(() => locked.seal(secret, 'c')).toThrow(/reads no SECRETS_ENCRYPTION_KEY/);
    expect(() => locked.open(sealed, 'c')).toThrow(/reads no SECRETS_ENCRYPTION_KEY/);
    expect(() => locked.isCurrent(sealed)).toThrow(/reads no SECRETS_ENCRYPTION_KEY/);
  });
});
