import { MAIL_STATUSES, MAILBOX_VERDICTS, VERIFIER_ENGINES } from '@leadgen/domain';

/**
 * The verdict beside every delivered address (docs/api.md, "Email verification"), written out in
 * full, with no shared helpers, so generators read it as it stands.
 */
export const emailVerificationSchema = {
  type: 'object',
  description:
    'The verdicts on the address beside it: `status`, domain-level, read from DNS (MX, null MX, A/AAAA); `verdict`, mailbox-level, from the engine the operator configured (`engine`: `dns` when none, which never vouches for a mailbox).',
  required: ['status', 'checks', 'checkedAt'],
  additionalProperties: false,
  properties: {
    status: {
      type: 'string',
      enum: [...MAIL_STATUSES],
      description:
        "`accepts_mail`: MX records that are not a null MX, or no MX and an A/AAAA record (RFC 5321 §5.1). `no_mail`: the domain does not exist, publishes a null MX (RFC 7505), or has neither record; such an address is never a lead's `email`. `unknown`: DNS did not answer in time or answered SERVFAIL; delivered as it is.",
    },
    checks: {
      type: 'object',
      description: 'Checks that need no mail server.',
      required: ['syntax', 'disposable', 'freeProvider', 'roleAccount'],
      additionalProperties: false,
      properties: {
        syntax: {
          type: 'boolean',
          description: 'An RFC 5322 addr-spec as mail systems accept it: a dot-atom local part and a host name (IDN through punycode).',
        },
        disposable: {
          type: 'boolean',
          description: "The domain is on the kept list of disposable mail domains; such an address is never a lead's `email`.",
        },
        freeProvider: {
          type: 'boolean',
          description: 'The domain is a free mailbox provider (gmail.com, outlook.com, gmx.de, web.de, ...).',
        },
        roleAccount: {
          type: 'boolean',
          description: 'The local part names a function rather than a person (info@, sales@, support@, ...).',
        },
      },
    },
    checkedAt: {
      type: 'string',
      format: 'date-time',
      description: "When the domain's DNS answer was read; a verdict from the fleet-wide cache keeps its original time.",
    },
    verdict: {
      type: 'string',
      enum: [...MAILBOX_VERDICTS],
      description:
        'The mailbox-level verdict (docs/api.md, "Email verification"): `deliverable` (the mailbox exists), `undeliverable` (it does not, or its domain takes no mail; never a lead\'s `email`), `catch_all` (the domain accepts every recipient), `unknown` (nothing learnt: no engine, or it was down or late), `risky` (full inbox, disabled, spam trap, abuse; never a lead\'s `email`). Absent only on verdicts made before mailbox verdicts existed.',
    },
    engine: {
      type: 'string',
      enum: [...VERIFIER_ENGINES],
      description: 'What gave `verdict`: `dns` (DNS alone), `reacher` or `zerobounce`.',
    },
    verdictAt: {
      type: 'string',
      format: 'date-time',
      description: 'When `engine` gave `verdict`; a verdict from the fleet-wide cache keeps its original time.',
    },
    reason: {
      type: 'string',
      description:
        "The engine's own words for the verdict (`is_reachable=safe`, `status=invalid/mailbox_not_found`, `no_mail`, `late`, `verifier_down`, ...).",
    },
  },
} as const;
