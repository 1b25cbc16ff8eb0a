import { MAIL_STATUSES } from '@leadgen/domain';

/**
 * The verdict beside every delivered address (docs/api.md, "Email verification"), written out in
 * full, with no shared helpers, so generators read it as it stands.
 */
export const emailVerificationSchema = {
  type: 'object',
  description:
    'A domain-level verdict on the address beside it, read from DNS only (MX, null MX, A/AAAA): it says whether the domain takes mail, never whether the mailbox exists (no mail server is contacted).',
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
  },
} as const;
