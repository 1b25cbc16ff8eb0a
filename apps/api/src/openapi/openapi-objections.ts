import { OBJECTION_KINDS, SUBJECT_OBJECTED_EVENT } from '@leadgen/domain';
import { d, int, object, ref, str, time, type Schema } from './openapi-schemas';

// Objections by the data subjects (decision 042): their schemas (the paths are in routes/privacy/privacy-endpoints.ts).

const strings = (description: string) => ({ type: 'array', items: str, description });
const kind = (description: string) => ({ type: 'string', enum: [...OBJECTION_KINDS], description });

export const objectionSchemas: Record<string, Schema> = {
  ObjectionPending: {
    description: 'The objection waits for proof of control; the answer is the same whether or not the service holds the subject',
    oneOf: [
      object(
        {
          kind: d('email', { const: 'email' }),
          status: d('pending', { const: 'pending' }),
          detail: d('What happens next', str),
          linkValidHours: d('How long the mailed link works (OBJECTION_LINK_TTL_HOURS)', int(1)),
        },
        undefined,
        { additionalProperties: false },
      ),
      object(
        {
          kind: d('domain', { const: 'domain' }),
          status: d('pending', { const: 'pending' }),
          objectionId: d('obj_…', str),
          expiresAt: d('Until when the token may be published and verified', time),
          proof: d(
            'Publish either',
            object({
              dnsTxt: d('A TXT record', object({ name: d('Its name', str), value: d('Its value', str) })),
              wellKnown: d('A file on the website', object({ url: d('Where', str), content: d('Its whole content', str) })),
            }),
          ),
          verifyUrl: d('POST here once published', str),
          detail: d('What happens next', str),
        },
        undefined,
        { additionalProperties: false },
      ),
      object(
        {
          kind: d('phone', { const: 'phone' }),
          status: d('pending', { const: 'pending' }),
          objectionId: d('obj_…: quote it to the operator', str),
          detail: d('What happens next', str),
        },
        undefined,
        { additionalProperties: false },
      ),
    ],
  },
  ObjectionConfirmed: object(
    {
      objectionId: d('obj_…', str),
      kind: d('domain', { const: 'domain' }),
      status: d('confirmed: applied within a minute', { const: 'confirmed' }),
      proof: d('What showed the token', { type: 'string', enum: ['dns_txt', 'well_known'] }),
    },
    undefined,
    { description: "The domain's control is proven" },
  ),
  ObjectionNotice: object(
    {
      noticeId: d('This notice', str),
      objectionId: d('The objection (obj_…)', str),
      subject: d('What the person objected with', object({ kind: kind('email, domain or phone'), value: d('In its normal form', str) })),
      identifiers: d(
        "The subject's values your own leads held (never more): stop using them for direct marketing",
        object({
          emails: strings('Email addresses (for a domain: the ones on it)'),
          phones: strings('Phone numbers (E.164)'),
          domains: strings('Domains'),
        }),
      ),
      jobIds: strings('Your jobs that delivered them (their stored copies are now erased)'),
      objectedAt: d('When the objection was applied', time),
    },
    undefined,
    { description: 'A person who objected to direct marketing, told to every account that received them' },
  ),
  ObjectionNoticePage: object(
    {
      items: { type: 'array', items: ref('ObjectionNotice'), description: 'newest first' },
      nextCursor: { anyOf: [str, { type: 'null' }], description: 'pass it back as `cursor` for the next page; null on the last' },
    },
    undefined,
    { description: 'One page of the notices' },
  ),
};

/** OpenAPI `webhooks`: subject.objected, sent to every enabled endpoint whatever it subscribes to. */
export const objectionEvents = (signatureHeaders: unknown[], received: Record<string, unknown>) => ({
  [SUBJECT_OBJECTED_EVENT]: {
    post: {
      tags: ['privacy'],
      operationId: 'event_subject_objected',
      summary: 'A person you received objected to direct marketing',
      description:
        'Sent to every enabled endpoint of each account that received the person in the last OBJECTION_NOTICE_DAYS (whatever the endpoint subscribes to: it is a legal notice), and to the `webhookUrl` of the jobs that delivered them. Remove or suppress the identifiers in your systems within the legal delay (GDPR art. 21: at once for direct marketing; CAN-SPAM: 10 business days). GET /api/v1/privacy/objections lists the same notices.',
      security: [],
      parameters: signatureHeaders,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: object({
              type: d('The event type', { const: SUBJECT_OBJECTED_EVENT }),
              timestamp: d('When the objection was applied', time),
              data: ref('ObjectionNotice'),
            }),
          },
        },
      },
      responses: received,
    },
  },
});
