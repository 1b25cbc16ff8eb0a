import { UpstreamError, type UpstreamClient } from '../../upstream';
import { objectAt, type EngineAnswer, type MailboxEngine } from './engine';

/**
 * Reacher (reacherhq/check-if-email-exists), self-hosted by the operator, through its HTTP backend
 * as backend/openapi.json documents it: `POST /v1/check_email` (or the older `/v0/check_email`,
 * "Both endpoints accept the same input arguments and return the same output") with
 * `{ "to_email": ... }`; the shared secret, when the backend sets `header_secret`, in
 * `x-reacher-secret`. Reacher routes its SMTP probes through its own SOCKS5 proxy and HELO name
 * (RCH__PROXY__*, RCH__HELLO_NAME), configured on Reacher, not here.
 */
export function createReacherEngine(client: UpstreamClient, path = '/v1/check_email'): MailboxEngine {
  return {
    name: 'reacher',
    async check(address, signal, deadline) {
      const { body } = await client.request({ method: 'POST', path, body: { to_email: address }, signal, deadline });
      return reacherAnswer(body);
    },
  };
}

type Reachable = 'safe' | 'risky' | 'invalid' | 'unknown';
const REACHABLE = new Set<string>(['safe', 'risky', 'invalid', 'unknown']);

/**
 * CheckEmailOutput onto the one vocabulary. `is_reachable` is Reacher's own summary ("the
 * confidence level that the recipient address is valid"); the `smtp` flags say why, so they win
 * where our vocabulary is finer: a catch-all domain is `catch_all` whatever `is_reachable` says, a
 * full or disabled mailbox is `risky`. A `risky` whose mailbox is deliverable and none of those is
 * risky for a reason our own checks already carry (role account, disposable): `deliverable`.
 * `smtp` may be a CoreError (`{ type, message }`): the SMTP conversation failed, nothing is known.
 */
export function reacherAnswer(body: unknown): EngineAnswer {
  const reachable = (body as Record<string, unknown> | null)?.is_reachable;
  if (typeof reachable !== 'string' || !REACHABLE.has(reachable))
    throw new UpstreamError('provider_error', 'reacher: answer without a documented is_reachable');
  const smtp = objectAt(body, 'smtp');
  const smtpDetails = smtp !== null && typeof smtp.is_deliverable === 'boolean' ? smtp : null;
  const reason = `is_reachable=${reachable}`;
  if (smtpDetails === null) {
    const failure = typeof smtp?.type === 'string' ? `; smtp error ${smtp.type}` : '';
    if (reachable === 'invalid') return { verdict: 'undeliverable', reason, catchAllDomain: null };
    return { verdict: 'unknown', reason: `${reason}${failure}`, catchAllDomain: null };
  }
  const flag = (name: string) => smtpDetails[name] === true;
  const connected = flag('can_connect_smtp');
  const catchAllDomain = connected ? flag('is_catch_all') : null;
  const verdict = ((): EngineAnswer['verdict'] => {
    switch (reachable as Reachable) {
      case 'invalid':
        return 'undeliverable';
      case 'unknown':
        return 'unknown';
      default:
        if (flag('is_catch_all')) return 'catch_all';
        if (flag('has_full_inbox') || flag('is_disabled')) return 'risky';
        if (reachable === 'safe' || flag('is_deliverable')) return 'deliverable';
        return 'risky';
    }
  })();
  const why = ['is_catch_all', 'has_full_inbox', 'is_disabled'].filter(flag);
  return { verdict, reason: why.length > 0 ? `${reason}; ${why.join(', ')}` : reason, catchAllDomain };
}
