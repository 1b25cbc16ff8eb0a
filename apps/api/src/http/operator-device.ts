import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The board's device cookie (OWASP, "Slow brute force attack mitigation: device cookies"): a browser that
 * logged in with the right password gets a signed token naming that device, and its later attempts are
 * counted against the device alone, never against the address or the user name strangers can fill
 * (login-throttle.ts). Signed with a key derived from OPERATOR_PASSWORD: a new password retires every
 * device at once. Nothing in it is secret but its signature; it grants nothing without the password.
 */
export const DEVICE_COOKIE = 'leadgen_operator_device';
const LIFETIME_SECONDS = 30 * 86_400;

export interface OperatorDevices {
  /** the device a Cookie header names, when its token is ours and not expired */
  trusted(cookieHeader: string | undefined, now?: number): string | null;
  /** a Set-Cookie value naming a new device (or renewing `device`), for a response to a successful login */
  issue(device: string | null, secure: boolean, now?: number): string;
}

function cookieValue(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return null;
}

export function operatorDevices(password: string): OperatorDevices {
  const key = createHmac('sha256', 'leadgen operator device cookie').update(password).digest();
  const sign = (payload: string) => createHmac('sha256', key).update(payload).digest('base64url');
  return {
    trusted(cookieHeader, now = Date.now()) {
      const token = cookieValue(cookieHeader, DEVICE_COOKIE);
      const [device, issued, signature] = token?.split('.') ?? [];
      if (!device || !issued || !signature || !/^[A-Za-z0-9_-]{22}$/.test(device) || !/^\d{1,12}$/.test(issued)) return null;
      const expected = Buffer.from(sign(`${device}.${issued}`));
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
      const age = now / 1000 - Number(issued);
      return age >= -300 && age < LIFETIME_SECONDS ? device : null;
    },
    issue(device, secure, now = Date.now()) {
      const id = device ?? randomBytes(16).toString('base64url');
      const issued = String(Math.floor(now / 1000));
      const attributes = [
        `Max-Age=${LIFETIME_SECONDS}`,
        'Path=/admin/queues',
        'HttpOnly',
        'SameSite=Strict',
        ...(secure ? ['Secure'] : []),
      ];
      return [`${DEVICE_COOKIE}=${id}.${issued}.${sign(`${id}.${issued}`)}`, ...attributes].join('; ');
    },
  };
}
