import type { MailboxVerdict } from '@leadgen/domain';
import { UpstreamError, type UpstreamClient } from '../../upstream';
import type { EngineAnswer, MailboxEngine } from './engine';

/**
 * ZeroBounce's single validation, as its v2 documentation describes it
 * (https://www.zerobounce.net/docs/email-validation-api-quickstart/): `GET /v2/validate` with
 * `api_key`, `email`, `ip_address` (may be blank) and `timeout` ("3 - 60 seconds ... when the
 * timeout occurs an unknown status is returned"). The key travels in the query string, so
 * the client never puts a URL in a message or a log.
 */
export function createZeroBounceEngine(client: UpstreamClient, apiKey: string, attemptTimeoutMs: number): MailboxEngine {
  // Ask ZeroBounce to give up a second before we would, so a slow mail server costs an `unknown`
  // it answers, not a timeout of ours.
  const timeout = Math.max(3, Math.min(60, Math.floor(attemptTimeoutMs / 1000) - 1));
  return {
    name: 'zerobounce',
    async check(address, signal, deadline) {
      const { body } = await client.request({
        method: 'GET',
        path: '/v2/validate',
        query: { api_key: apiKey, email: address, ip_address: '', timeout },
        signal,
        deadline,
      });
      return zeroBounceAnswer(body);
    },
  };
}

/**
 * `status` (and `sub_status`) onto the one vocabulary, per ZeroBounce's "Status Codes" page:
 * valid → deliverable; invalid → undeliverable, except `mailbox_quota_exceeded` (the mailbox exists
 * and is full: risky); catch-all → catch_all; unknown → unknown; spamtrap, abuse → risky;
 * do_not_mail → risky, except `role_based` (a real mailbox whose role our checks carry:
 * deliverable) and `role_based_catch_all` (catch_all).
 */
export function zeroBounceAnswer(body: unknown): EngineAnswer {
  const record = (body ?? {}) as Record<string, unknown>;
  // The documented refusal of a wrong key or an empty account is HTTP 200 with only `error`.
  if (typeof record.error === 'string')
    throw new UpstreamError('provider_unauthorized', `zerobounce: ${record.error.slice(0, 200)} (credentials refused)`, 200);
  const status = typeof record.status === 'string' ? record.status : null;
  const sub = typeof record.sub_status === 'string' ? record.sub_status : '';
  if (status === null) throw new UpstreamError('provider_error', 'zerobounce: answer without a documented status');
  const reason = sub === '' ? `status=${status}` : `status=${status}/${sub}`;
  const answer = (verdict: MailboxVerdict, catchAllDomain: boolean | null): EngineAnswer => ({ verdict, reason, catchAllDomain });
  switch (status) {
    case 'valid':
      return answer('deliverable', false);
    case 'invalid':
      return sub === 'mailbox_quota_exceeded' ? answer('risky', false) : answer('undeliverable', null);
    case 'catch-all':
      return answer('catch_all', true);
    case 'unknown':
      return answer('unknown', null);
    case 'spamtrap':
    case 'abuse':
      return answer('risky', null);
    case 'do_not_mail':
      if (sub === 'role_based') return answer('deliverable', false);
      if (sub === 'role_based_catch_all') return answer('catch_all', true);
      return answer('risky', null);
    default:
      throw new UpstreamError('provider_error', `zerobounce: undocumented status ${status.slice(0, 40)}`);
  }
}
