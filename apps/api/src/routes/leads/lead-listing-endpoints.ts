import { BATCH_STATUSES, NON_TERMINAL_STATUSES, SOURCES, TERMINAL_STATUSES } from '@leadgen/domain';
import type { ApiDependencies } from '../../dependencies';
import type { RequestSchemas } from '../../http/request-validation';
import type { Endpoint, Handler } from '../../http/route-table';
import {
  cursorParam,
  d,
  hdr,
  limited,
  limitParam,
  nullable,
  object,
  pick,
  query,
  ref,
  rfc3339Param,
  str,
  type Schema,
} from '../../openapi/openapi-schemas';
import { batchPath, jobPath, resultSetPath } from '../path-params';
import { batchLeadsRoute } from './batches-route';
import { batchLeadsQuerySchema } from './batches-schema';
import { accountLeadsRoute, resultSetLeadsRoute } from './leads-route';
import { LEADS_PAGE_DEFAULT, LEADS_PAGE_LIMIT, accountLeadsQuerySchema, resultSetQuerySchema } from './leads-schema';

// Every listing of leads (a job's, a result set's, a batch's, the account's): the JSON page and the two
// downloads, each its own path.

type Download = 'csv' | 'jsonl';

const leadsLimit = limitParam('Leads per JSON page (CSV and JSON Lines stream everything)', LEADS_PAGE_LIMIT, LEADS_PAGE_DEFAULT);
const exportHeaders = { ...limited, Link: hdr('Link') };
const resultSetPage = object({
  jobId: d('The job', str),
  resultSetId: d('Its result set', str),
  status: d("The job's status when the page was read", { type: 'string', enum: [...NON_TERMINAL_STATUSES, ...TERMINAL_STATUSES] }),
  complete: { type: 'boolean', description: 'false while the job runs: the leads committed so far' },
  nextCursor: d('Pass as `cursor` for the next page; null on the last', nullable(str)),
  items: d("The page's leads", { type: 'array', items: ref('LeadItem') }),
});
const setMarks = { 'Result-Complete': hdr('Result-Complete'), 'Job-Status': hdr('Job-Status') };
const legacyFormats =
  'Earlier clients may still ask this path for a download with `?format=csv` / `?format=jsonl` or `Accept: text/csv` / `Accept: application/x-ndjson`: the answer is then exactly that of the `.csv` / `.jsonl` operation. New code should call those operations.';
// The older way to ask a JSON path for a download, kept for earlier clients. Declared as a parameter only:
// a `text/csv` alternative in the JSON operation's answer would make generators (openapi-fetch) type every
// page as `Page | string`.
const formatParam = query(
  'format',
  'json (the default) answers this page; `csv` or `jsonl` answer exactly as the `.csv` / `.jsonl` operation (text/csv, application/x-ndjson), as does `Accept: text/csv` or `Accept: application/x-ndjson` (or `application/jsonl`) without this parameter. New code should call those operations.',
  { type: 'string', enum: ['json', 'csv', 'jsonl'], default: 'json' },
);
const MEDIA: Record<Download, { type: string; name: string; body: string }> = {
  csv: {
    type: 'text/csv',
    name: 'CSV',
    body: 'RFC 4180, UTF-8, a header row; the columns are listed in docs/api.md and never reordered.',
  },
  jsonl: { type: 'application/x-ndjson', name: 'JSON Lines', body: 'one LeadItem (JSON) per line.' },
};

/**
 * A listing of leads as three endpoints, one media type each, so a generator types each answer: the whole
 * selection streamed at `path.csv` and `path.jsonl`, declared first (a `{resultSetId}` would take
 * `rs_….csv`), and the JSON page at `path`.
 */
function leadListing(
  path: string,
  base: {
    operationId: string;
    summary: string;
    description: string;
    parameters: unknown[];
    json: Schema;
    marks?: Record<string, unknown>;
    /** The path's ids and the query, validated by the route table */
    request: RequestSchemas;
    notFound?: boolean;
    /** What a download adds to the `read` window beyond its own hit */
    downloadWeight: string;
    handler: (deps: ApiDependencies, download?: Download) => Handler<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- each listing names its own
  },
): Endpoint[] {
  // A job's own leads are gone once LEAD_RETENTION_DAYS has passed (410); the account's listing skips such jobs.
  const fault = base.notFound === false ? pick(400, 401, 405, 429, 500, 503) : pick(400, 401, 404, 405, 410, 429, 500, 503);
  const common = { method: 'get', auth: 'key', scope: 'read', request: base.request } as const;
  const download = (format: Download): Endpoint => ({
    ...common,
    path: `${path}.${format}`,
    rateLimit: { policy: 'read', weight: base.downloadWeight },
    handler: (deps) => base.handler(deps, format),
    operation: {
      tags: ['leads'],
      parameters: base.parameters.filter((p) => (p as { name?: string }).name !== 'limit'),
      operationId: `${base.operationId}${format === 'csv' ? 'Csv' : 'Jsonl'}`,
      summary: `${base.summary}, as ${MEDIA[format].name}`,
      description: `${base.description} The whole selection streamed as one download (from \`cursor\` when given); ${MEDIA[format].body}`,
      responses: {
        200: {
          description: `The leads as ${MEDIA[format].name}`,
          headers: { ...limited, 'Content-Disposition': hdr('Content-Disposition'), ...base.marks },
          content: { [MEDIA[format].type]: { schema: { type: 'string', description: MEDIA[format].body } } },
        },
        ...fault,
      },
    },
  });
  return [
    download('csv'),
    download('jsonl'),
    {
      ...common,
      path,
      rateLimit: { policy: 'read' },
      handler: (deps) => base.handler(deps),
      operation: {
        tags: ['leads'],
        parameters: [...base.parameters, formatParam],
        operationId: base.operationId,
        summary: base.summary,
        description: `${base.description} A JSON page; follow \`nextCursor\` (or \`Link\`) for the next. ${legacyFormats}`,
        responses: {
          200: {
            description: 'A page of leads',
            headers: { ...exportHeaders, ...base.marks },
            content: { 'application/json': { schema: base.json } },
          },
          ...fault,
        },
      },
    },
  ];
}

const EXPORT_WEIGHT = '1 + 1 per 100 leads streamed (ROWS_PER_UNIT), charged after the download';

export const leadListingEndpoints: Endpoint[] = [
  ...leadListing('/api/v1/leads/jobs/{jobId}/leads', {
    operationId: 'getJobLeads',
    summary: "A job's leads (a running job's so far)",
    description:
      "The leads of one job in delivery order; while the job runs, the ones committed so far (`Result-Complete: false`). Once the service's lead retention has passed, the job's leads are deleted and this answers 410 `leads_expired`.",
    request: { params: jobPath, query: resultSetQuerySchema },
    parameters: [leadsLimit, cursorParam],
    json: resultSetPage,
    marks: setMarks,
    downloadWeight: EXPORT_WEIGHT,
    handler: (deps, download) => resultSetLeadsRoute(deps, 'job', download),
  }),
  ...leadListing('/api/v1/leads/result-sets/{resultSetId}', {
    operationId: 'getResultSet',
    summary: "A result set: the same answer as its job's leads",
    description: "A result set by its id (the `resultSetId` of a job body): the same leads, in the same order, as its job's.",
    request: { params: resultSetPath, query: resultSetQuerySchema },
    parameters: [leadsLimit, cursorParam],
    json: resultSetPage,
    marks: setMarks,
    downloadWeight: EXPORT_WEIGHT,
    handler: (deps, download) => resultSetLeadsRoute(deps, 'resultSet', download),
  }),
  ...leadListing('/api/v1/leads', {
    operationId: 'listLeads',
    summary: "Every lead of the account: oldest job first, each job's in delivery order",
    description: 'Every lead delivered to the account, across its jobs, narrowed by the filters.',
    parameters: [
      leadsLimit,
      cursorParam,
      query('source', 'Only leads of jobs of this source', { type: 'string', enum: [...SOURCES] }),
      query('jobId', 'Only leads of this job', str),
      rfc3339Param('createdAfter', 'Leads of jobs created at or after'),
      rfc3339Param('createdBefore', 'Leads of jobs created before'),
    ],
    json: object({
      nextCursor: d('Pass as `cursor` for the next page; null on the last', nullable(str)),
      items: d("The page's leads", { type: 'array', items: ref('LeadItem') }),
    }),
    request: { query: accountLeadsQuerySchema },
    notFound: false,
    downloadWeight: EXPORT_WEIGHT,
    handler: accountLeadsRoute,
  }),
  ...leadListing('/api/v1/leads/batches/{batchId}/leads', {
    operationId: 'getBatchLeads',
    summary: "A batch's leads (a running batch's so far)",
    description:
      "The batch's leads across its children: children in request order, each one's leads in delivery order; while the batch runs, the ones committed so far (`Result-Complete: false`).",
    request: { params: batchPath, query: batchLeadsQuerySchema },
    parameters: [leadsLimit, cursorParam],
    json: object({
      batchId: d('The batch', str),
      status: d("The batch's status when the page was read", { type: 'string', enum: [...BATCH_STATUSES] }),
      complete: { type: 'boolean', description: 'false while the batch runs: the leads committed so far' },
      nextCursor: d('Pass as `cursor` for the next page; null on the last', nullable(str)),
      items: d("The page's leads", { type: 'array', items: ref('LeadItem') }),
    }),
    marks: { 'Result-Complete': hdr('Result-Complete'), 'Batch-Status': hdr('Batch-Status') },
    downloadWeight: '1 per call',
    handler: batchLeadsRoute,
  }),
];
