import { FakeServer, type FakeResponse, type RecordedRequest } from './fake-server';

/**
 * A fake of Reacher's HTTP backend (reacherhq/check-if-email-exists, backend/openapi.json,
 * version 0.10), answering as it documents:
 * - `POST /v1/check_email` and `POST /v0/check_email`: "Both endpoints accept the same input
 *   arguments and return the same output"; the body is a CheckEmailRequest, "The `to_email`
 *   field is required, all other fields are optional";
 * - an empty `to_email` is 400 `{ "error": "to_email field is required." }` (backend/src/http/
 *   v1/check_email/post.rs); every error body is `{ "error": "<message>" }` (ReacherResponseError
 *   in backend/src/http/error.rs), e.g. 500 "Failed to get a reply from the worker.";
 * - with `header_secret` set, "Shared secret between a trusted client and the backend, required in
 *   the `x-reacher-secret` header of all incoming requests" (backend_config.toml); the document
 *   names no status for a wrong one: this fake answers 400, what warp answers a request header
 *   that does not match;
 * - 200 with a CheckEmailOutput: `input` ("The email address that was verified"), `is_reachable`
 *   ("the confidence level that the recipient address is valid: `safe`, `risky`, `invalid`, or
 *   `unknown`"), `misc` (MiscDetails: `is_disposable`, `is_role_account`), `mx` (MxDetails:
 *   `accepts_mail`, `records`), `smtp` (SmtpDetails: `can_connect_smtp` "if the mail exchanger
 *   can be contacted", `has_full_inbox` "if the mailbox is full", `is_catch_all` "if the email
 *   address is a catch-all address", `is_deliverable` "if an email sent to this address is
 *   deliverable", `is_disabled` "if the email address has been disabled by the provider"; or a
 *   CoreError `{ type, message }`), `syntax` (SyntaxDetails: `domain`, `is_valid_syntax`,
 *   `username`).
 * What the fake's mail servers hold: a domain in `catchAllDomains` accepts every recipient
 * (Reacher finds it by probing a random address: is_catch_all, is_reachable `risky`); elsewhere a
 * local part `nobody*` does not exist (invalid), `full*` has a full inbox, `disabled*` is disabled,
 * `greylist*` makes the SMTP conversation fail (a CoreError, `unknown`); any other exists (safe).
 */
export class ReacherFake extends FakeServer {
  readonly catchAllDomains = new Set<string>();

  constructor(readonly secret: string | null = null) {
    super(
      (request) => this.answer(request),
      (status) => ({ error: status >= 500 ? 'Failed to get a reply from the worker.' : `HTTP ${status}` }),
    );
  }

  /** Verification requests (POSTs to check_email) received. */
  checks(): RecordedRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && /\/v[01]\/check_email$/.test(r.path));
  }

  private answer(request: RecordedRequest): FakeResponse {
    if (request.method !== 'POST' || !/^\/v[01]\/check_email$/.test(request.path)) return { status: 404, body: { error: 'not found' } };
    if (this.secret !== null && request.headers['x-reacher-secret'] !== this.secret)
      return { status: 400, body: { error: 'Invalid request header "x-reacher-secret"' } };
    const toEmail = (request.body as { to_email?: unknown } | null)?.to_email;
    if (typeof toEmail !== 'string' || toEmail === '') return { status: 400, body: { error: 'to_email field is required.' } };
    return { status: 200, body: this.output(toEmail) };
  }

  private output(input: string): Record<string, unknown> {
    const at = input.lastIndexOf('@');
    const username = at > 0 ? input.slice(0, at) : '';
    const domain = at > 0 ? input.slice(at + 1).toLowerCase() : '';
    const syntax = { domain, is_valid_syntax: at > 0, username };
    const misc = { is_disposable: false, is_role_account: /^(info|sales|support|contact)$/i.test(username) };
    const mx = { accepts_mail: true, records: [`mx1.${domain}.`] };
    const smtp = { can_connect_smtp: true, has_full_inbox: false, is_catch_all: false, is_deliverable: true, is_disabled: false };
    const local = username.toLowerCase();
    if (this.catchAllDomains.has(domain)) return { input, is_reachable: 'risky', misc, mx, smtp: { ...smtp, is_catch_all: true }, syntax };
    if (local.startsWith('greylist'))
      return {
        input,
        is_reachable: 'unknown',
        misc,
        mx,
        smtp: { type: 'SmtpError', message: '451 4.7.1 Greylisted, please try again later' },
        syntax,
      };
    if (local.startsWith('nobody')) return { input, is_reachable: 'invalid', misc, mx, smtp: { ...smtp, is_deliverable: false }, syntax };
    if (local.startsWith('full')) return { input, is_reachable: 'risky', misc, mx, smtp: { ...smtp, has_full_inbox: true }, syntax };
    if (local.startsWith('disabled'))
      return { input, is_reachable: 'risky', misc, mx, smtp: { ...smtp, is_disabled: true, is_deliverable: false }, syntax };
    return { input, is_reachable: misc.is_role_account ? 'risky' : 'safe', misc, mx, smtp, syntax };
  }
}
