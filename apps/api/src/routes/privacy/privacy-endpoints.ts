import { OBJECTIONS_PATH } from '@leadgen/domain';
import type { Endpoint } from '../../http/route-table';
import { hdr, limited, pick, problemResponse, ref } from '../../openapi/openapi-schemas';
import { noticesQuerySchema, objectionBodySchema, objectionPath } from './privacy-schema';
import { listNoticesRoute, requestObjectionRoute, verifyObjectionRoute } from './privacy-route';

// Objections by the people in the leads (decision 042): public, since they have no key; the feed of notices
// is each account's. The confirmation page a mail links to is HTML for a person, not an API operation: it is
// mounted beside /docs (confirmation-page-route.ts), outside this table and the document.
const noStore = { 'X-Request-Id': hdr('X-Request-Id') };

export const privacyEndpoints: Endpoint[] = [
  {
    method: 'get',
    path: OBJECTIONS_PATH,
    auth: 'key',
    scope: 'read',
    rateLimit: { policy: 'read' },
    request: { query: noticesQuerySchema },
    handler: listNoticesRoute,
    operation: {
      tags: ['privacy'],
      operationId: 'listObjectionNotices',
      summary: 'People you received who objected to direct marketing, newest first (the feed of subject.objected)',
      description:
        'Each notice names a person who objected and proved it, with only the identifiers your own leads held and the jobs that delivered them. Their stored copies are already erased and no job delivers them again; remove them from your systems within the legal delay (docs/data-protection.md).',
      responses: {
        200: {
          description: 'A page of notices',
          headers: { ...limited, Link: hdr('Link') },
          content: { 'application/json': { schema: ref('ObjectionNoticePage') } },
        },
      },
    },
  },
  {
    method: 'post',
    path: OBJECTIONS_PATH,
    auth: 'public',
    body: { limitBytes: 1024 },
    request: { body: objectionBodySchema },
    handler: requestObjectionRoute,
    operation: {
      tags: ['privacy'],
      operationId: 'requestObjection',
      summary: 'Object to direct marketing with an email address, a domain or a phone (no key)',
      description:
        'Starts an objection; nothing changes until control is proven: an email address receives a single-use link (at most one mail an hour), a domain publishes the returned token in DNS or under /.well-known/, a phone is confirmed by an operator. The answer and its timing are the same whether or not the service holds the subject. At most 10 requests an hour per client network; a domain or a phone with a pending objection is answered with that one (the same id and token), so nobody can use up what its owner needs.',
      responses: {
        202: { description: 'Pending proof', headers: noStore, content: { 'application/json': { schema: ref('ObjectionPending') } } },
        ...pick(429, 500, 503),
      },
    },
  },
  {
    method: 'post',
    path: `${OBJECTIONS_PATH}/{id}/verify`,
    auth: 'public',
    request: { params: objectionPath },
    handler: verifyObjectionRoute,
    operation: {
      tags: ['privacy'],
      operationId: 'verifyObjection',
      summary: "Checks a domain objection's token in the domain's DNS and on its website",
      description:
        "Looks for the TXT record `_leadgen-objection.<domain>` holding `leadgen-objection=<token>`, or `http://<domain>/.well-known/leadgen-objection.txt` holding the token (as certificate authorities check control). Found: the objection is confirmed and applied within a minute. Counted in the client network's hourly window.",
      responses: {
        200: { description: 'Confirmed', headers: noStore, content: { 'application/json': { schema: ref('ObjectionConfirmed') } } },
        404: problemResponse('objection_not_found: no pending domain objection with this id, or its token expired'),
        409: problemResponse('objection_not_proven: neither proof shows the token yet'),
        ...pick(429, 500, 503),
      },
    },
  },
];
