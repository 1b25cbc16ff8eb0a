import { SOURCES } from '@leadgen/domain';
import type { Endpoint } from '../../http/route-table';
import { d, hdr, int, limited, nullable, object, str, time } from '../../openapi/openapi-schemas';
import { takenAndIgnored } from '../../http/paging';
import { LEDGER_CSV_COLUMNS } from '../../presenters/ledger-presenter';
import { LEDGER_ROWS_PER_UNIT, ledgerCsvRoute, ledgerRoute, usageRoute } from './ledger-route';
import { ledgerQuerySchema, USAGE_DEFAULT_DAYS, USAGE_MAX_DAYS, usageQuerySchema } from './ledger-schema';

// The account's credit history for its owner (decision 036): the ledger's rows, as JSON pages or CSV, and usage per
// day and source. The `read` scope and rate limit; the CSV path is declared first, as the leads' downloads are.

const sources = { type: 'string', enum: [...SOURCES] };
const ledgerEntry = object({
  id: d('The row’s number: rows are numbered in the order they were written', int(1)),
  createdAt: d('When it was written', time),
  kind: d(
    'grant (credits added by the operator), reserve (held by a job at its creation), release (what a job held, returned at its end), charge (what a job cost, at its end)',
    { type: 'string', enum: ['grant', 'reserve', 'release', 'charge'] },
  ),
  amount: d('Credits, always positive: the kind gives the direction', int(1)),
  jobId: d('The job it belongs to; null for a grant', nullable(str)),
  batchId: d('The batch of that job, if it is a batch’s child', nullable(str)),
  source: d('The job’s source; null for a grant', nullable(sources)),
});
const csvBody = `RFC 4180, UTF-8, CRLF, a header row; the columns ${LEDGER_CSV_COLUMNS.map((c) => `\`${c}\``).join(', ')}, never reordered (new ones come last).`;
const usageFigures = {
  jobsCharged: d('Jobs charged (a job is charged once, at its terminal status, and only when it delivered leads)', int()),
  leadsDelivered: d('The leads those jobs delivered', int()),
  creditsCharged: d('What they cost', int()),
};

export const ledgerEndpoints: Endpoint[] = [
  {
    method: 'get',
    path: '/api/v1/account/ledger.csv',
    auth: 'key',
    scope: 'read',
    rateLimit: { policy: 'read', weight: `1 + 1 per ${LEDGER_ROWS_PER_UNIT} rows streamed, charged before the first byte` },
    // The whole selection streams: `limit` is taken and ignored.
    request: { query: takenAndIgnored(ledgerQuerySchema, 'limit') },
    handler: ledgerCsvRoute,
    operation: {
      tags: ['account'],
      operationId: 'exportAccountLedgerCsv',
      summary: "The account's credit ledger as CSV",
      description: `The whole selection (from \`cursor\` when given) streamed as one download, oldest row first: ${csvBody} It takes one of the account's export places (EXPORTS_PER_ACCOUNT_AT_ONCE), as a lead download does.`,
      responses: {
        200: {
          description: 'The ledger rows as CSV',
          headers: { ...limited, 'Content-Disposition': hdr('Content-Disposition') },
          content: { 'text/csv': { schema: { type: 'string', description: csvBody } } },
        },
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/account/ledger',
    auth: 'key',
    scope: 'read',
    rateLimit: { policy: 'read' },
    request: { query: ledgerQuerySchema },
    handler: ledgerRoute,
    operation: {
      tags: ['account'],
      operationId: 'listAccountLedger',
      summary: "The account's credit ledger, oldest row first",
      description:
        "The append-only ledger the account's balance is derived from: every grant, and each job's reserve, release and charge, oldest first, a page at a time (`Link: rel=\"next\"` while there is more). Its sums are the account's credits: balance = grants − charges, reserved = reserves − releases.",
      responses: {
        200: {
          description: 'A page of ledger rows',
          headers: { ...limited, Link: hdr('Link') },
          content: {
            'application/json': {
              schema: object({
                items: d("The page's rows, oldest first", { type: 'array', items: ledgerEntry }),
                nextCursor: d('Pass as `cursor` for the next page; null on the last', nullable(str)),
              }),
            },
          },
        },
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/account/usage',
    auth: 'key',
    scope: 'read',
    rateLimit: { policy: 'read' },
    request: { query: usageQuerySchema },
    handler: usageRoute,
    operation: {
      tags: ['account'],
      operationId: 'getAccountUsage',
      summary: 'Charges per UTC day and source, with totals',
      description: `What the account's jobs were charged, per UTC day and source, between two days (both included; by default the last ${USAGE_DEFAULT_DAYS} days up to today, at most ${USAGE_MAX_DAYS} at once), from the ledger's charge rows; with the credits granted in those days. Days and sources without a charge are left out of \`days\`.`,
      responses: {
        200: {
          description: 'Usage per day and source',
          headers: limited,
          content: {
            'application/json': {
              schema: object({
                from: d('The first day counted', { type: 'string', format: 'date' }),
                to: d('The last day counted', { type: 'string', format: 'date' }),
                days: d('Per UTC day and source with a charge, in day then source order', {
                  type: 'array',
                  items: object({
                    date: d('The UTC day', { type: 'string', format: 'date' }),
                    source: d('The source', sources),
                    ...usageFigures,
                  }),
                }),
                totals: d(
                  'The whole span',
                  object({
                    ...usageFigures,
                    creditsGranted: d('Credits granted in the span', int()),
                    bySource: d('The same figures per source, every source listed', {
                      type: 'array',
                      items: object({ source: d('The source', sources), ...usageFigures }),
                    }),
                  }),
                ),
              }),
            },
          },
        },
      },
    },
  },
];
