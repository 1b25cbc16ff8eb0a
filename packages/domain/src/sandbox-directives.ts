/**
 * A keyword of the form `sandbox:<directive>[;<directive>...]` steers one sandbox job, as a payment
 * provider's test cards do. Keywords starting with `sandbox:` are reserved for this.
 */
export interface SandboxDirectives {
  /** no matches at all */
  empty?: boolean;
  /** exactly N matches exist */
  only?: number;
  /** upstream error before the first result */
  fail?: boolean;
  /** upstream error after N results */
  failAfter?: number;
  /** the upstream refuses the credentials */
  unauthorized?: boolean;
  /** per-page latency in milliseconds */
  delayMs?: number;
  /**
   * put the leads' addresses on sandbox domains whose verdict is this: a DNS status (mixed: accepts_mail, no_mail,
   * unknown in turn) or a mailbox verdict of the sandbox's engine (catch_all, undeliverable, risky)
   */
  mail?: SandboxMail;
}

export const SANDBOX_MAIL = ['accepts_mail', 'no_mail', 'unknown', 'mixed', 'catch_all', 'undeliverable', 'risky'] as const;
export type SandboxMail = (typeof SANDBOX_MAIL)[number];

export const SANDBOX_PREFIX = 'sandbox:';
const MAX_DELAY_MS = 60_000;
const MAX_COUNT = 10_000;

export type DirectiveParse = { ok: true; directives: SandboxDirectives } | { ok: false; problem: string };

export function isSandboxKeyword(keyword: string | undefined | null): keyword is string {
  return typeof keyword === 'string' && keyword.trim().toLowerCase().startsWith(SANDBOX_PREFIX);
}

function count(name: string, raw: string | undefined, max: number): number | string {
  if (raw === undefined || !/^\d{1,6}$/.test(raw)) return `${name} needs a whole number, as ${name}=5`;
  const n = Number(raw);
  return n > max ? `${name} is at most ${max}` : n;
}

export function parseSandboxDirectives(keyword: string): DirectiveParse {
  const body = keyword.trim().slice(SANDBOX_PREFIX.length);
  const directives: SandboxDirectives = {};
  const parts = body
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  if (parts.length === 0)
    return {
      ok: false,
      problem: 'sandbox: needs at least one directive (empty, only=N, fail, fail_after=N, delay=MS, unauthorized, mail=STATUS)',
    };
  for (const part of parts) {
    const [name, value, ...rest] = part.split('=').map((s) => s.trim());
    if (rest.length > 0) return { ok: false, problem: `sandbox directive "${part}" is malformed` };
    let parsed: number | string;
    switch (name) {
      case 'empty':
      case 'fail':
      case 'unauthorized':
        if (value !== undefined) return { ok: false, problem: `sandbox directive ${name} takes no value` };
        directives[name] = true;
        break;
      case 'only':
        parsed = count('only', value, MAX_COUNT);
        if (typeof parsed === 'string') return { ok: false, problem: parsed };
        directives.only = parsed;
        break;
      case 'fail_after':
        parsed = count('fail_after', value, MAX_COUNT);
        if (typeof parsed === 'string') return { ok: false, problem: parsed };
        directives.failAfter = parsed;
        break;
      case 'delay':
        parsed = count('delay', value, MAX_DELAY_MS);
        if (typeof parsed === 'string') return { ok: false, problem: parsed };
        directives.delayMs = parsed;
        break;
      case 'mail':
        if (!(SANDBOX_MAIL as readonly string[]).includes(value ?? ''))
          return { ok: false, problem: `sandbox directive mail takes one of ${SANDBOX_MAIL.join(', ')}` };
        directives.mail = value as SandboxMail;
        break;
      default:
        return {
          ok: false,
          problem: `unknown sandbox directive "${name}"; known: empty, only=N, fail, fail_after=N, delay=MS, unauthorized, mail=STATUS`,
        };
    }
  }
  return { ok: true, directives };
}
