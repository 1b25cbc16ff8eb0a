import { FakeServer, type FakeResponse, type RecordedRequest } from './fake-server';

/**
 * A fake of ZeroBounce's single validation, as its v2 documentation describes it
 * (https://www.zerobounce.net/docs/email-validation-api-quickstart/, the "Status Codes" and "API
 * Error Codes" pages):
 * - `GET /v2/validate` with `api_key` ("Your API Key, found in your account"), `email` ("The
 *   email address you want to validate"), `ip_address` ("The IP Address the email signed up from
 *   - Can be blank, but parameter required") and optional `timeout` ("3 - 60 seconds");
 * - a wrong key or an account out of credits: HTTP 200 with only
 *   `{ "error": "Invalid API Key or your account ran out of credits" }`;
 * - transport errors are plain statuses whose body is not documented (400 "An error in the
 *   structure of the API request", 429 "Too Many Requests", 500, 520, 524; 403 the API Shield);
 * - 200 with `address`, `status` (valid, invalid, catch-all, unknown, spamtrap, abuse,
 *   do_not_mail), `sub_status` (mailbox_not_found, mailbox_quota_exceeded, role_based,
 *   role_based_catch_all, greylisted, ...; "" when none), `free_email`, `did_you_mean`, `account`,
 *   `domain`, `domain_age_days`, `smtp_provider`, `mx_found`, `mx_record`, `firstname`, `lastname`,
 *   `gender`, `country`, `region`, `city`, `zipcode`, `processed_at`.
 * Statuses, as in ZeroBounce's sandbox addresses, follow the local part: `invalid*`
 * (invalid/mailbox_not_found), `quota*` (invalid/mailbox_quota_exceeded), `spamtrap*`, `abuse*`,
 * `role*` (do_not_mail/role_based), `donotmail*` (do_not_mail/global_suppression), `unknown*`
 * (unknown/greylisted); a domain in `catchAllDomains` is catch-all; any other address is valid.
 */
export class ZeroBounceFake extends FakeServer {
  readonly catchAllDomains = new Set<string>();

  constructor(readonly apiKey: string) {
    // The error bodies are not documented: a short text, as a proxy in front would send.
    super(
      (request) => this.answer(request),
      (status) => `HTTP ${status}`,
    );
  }

  validations(): RecordedRequest[] {
    return this.requests.filter((r) => r.path === '/v2/validate');
  }

  private answer(request: RecordedRequest): FakeResponse {
    if (request.method !== 'GET' || request.path !== '/v2/validate') return { status: 404, body: 'Not Found' };
    if (request.query.get('api_key') !== this.apiKey)
      return { status: 200, body: { error: 'Invalid API Key or your account ran out of credits' } };
    const email = request.query.get('email');
    if (!email || !request.query.has('ip_address')) return { status: 400, body: 'Bad Request' };
    const timeout = request.query.get('timeout');
    if (timeout !== null && !(Number(timeout) >= 3 && Number(timeout) <= 60)) return { status: 400, body: 'Bad Request' };
    const at = email.lastIndexOf('@');
    const account = email.slice(0, at);
    const domain = email.slice(at + 1).toLowerCase();
    const [status, sub] = this.statusOf(account.toLowerCase(), domain);
    return {
      status: 200,
      body: {
        address: email,
        status,
        sub_status: sub,
        free_email: false,
        did_you_mean: null,
        account,
        domain,
        domain_age_days: '4000',
        smtp_provider: null,
        mx_found: 'true',
        mx_record: `mx1.${domain}`,
        firstname: null,
        lastname: null,
        gender: null,
        country: null,
        region: null,
        city: null,
        zipcode: null,
        processed_at: new Date().toISOString().replace('T', ' ').replace('Z', ''),
      },
    };
  }

  private statusOf(local: string, domain: string): [string, string] {
    if (this.catchAllDomains.has(domain)) return ['catch-all', ''];
    const rules: Array<[string, [string, string]]> = [
      ['invalid', ['invalid', 'mailbox_not_found']],
      ['quota', ['invalid', 'mailbox_quota_exceeded']],
      ['spamtrap', ['spamtrap', '']],
      ['abuse', ['abuse', '']],
      ['role', ['do_not_mail', 'role_based']],
      ['donotmail', ['do_not_mail', 'global_suppression']],
      ['unknown', ['unknown', 'greylisted']],
    ];
    return rules.find(([prefix]) => local.startsWith(prefix))?.[1] ?? ['valid', ''];
  }
}
