import type Joi from 'joi';
import { BATCH_STATUSES, NON_TERMINAL_STATUSES, TERMINAL_STATUSES } from '@leadgen/domain';
import type { ApiDependencies } from '../../dependencies';
import type { RequestSchemas } from '../../http/request-validation';
import type { Endpoint, Handler } from '../../http/route-table';
import { d, hdr, limited, nullable, object, pick, ref, str, type Schema } from '../../openapi/openapi-schemas';
import { takenAndIgnored } from '../../http/paging';
import { batchPath, jobPath, resultSetPath } from '../path-params';
import { batchLeadsRoute } from './batches-route';
import { batchLeadsQuerySchema } from './batches-schema';
import { accountLeadsRoute, resultSetLeadsRoute } from './leads-route';
import { accountLeadsQuerySchema, resultSetQuerySchema } from './leads-schema';

// Every listing of leads (a job's, a result set's, a batch's, the account's): the JSON page and the two
// downloads, each its own path.

type Download = 'csv' | 'jsonl';

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
    json: Schema;
    marks?: Record<string, unknown>;
    /** The path's ids and the JSON page's query (with `limit` and the older `format`), validated by the route table */
    request: RequestSchemas & { query: Joi.ObjectSchema };
    notFound?: boolean;
    /** What a download adds to the `read` window beyond its own hit */
    downloadWeight: string;
    handler: (deps: ApiDependencies, download?: Download) => Handler<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- each listing names its own
  },
): Endpoint[] {
  // A job's own leads are gone once LEAD_RETENTION_DAYS has passed (410); the account's listing skips such jobs.
  const fault = base.notFound === false ? {} : pick(404, 410);
  const common = { method: 'get', auth: 'key', scope: 'read' } as const;
  const download = (format: Download): Endpoint => ({
    ...common,
    path: `${path}.${format}`,
    request: { ...base.request, query: takenAndIgnored(base.request.query, 'limit', 'format') },
    rateLimit: { policy: 'read', weight: base.downloadWeight },
    handler: (deps) => base.handler(deps, format),
    operation: {
      tags: ['leads'],
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
      request: base.request,
      rateLimit: { policy: 'read' },
      handler: (deps) => base.handler(deps),
      operation: {
        tags: ['leads'],
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
    json: resultSetPage,
    marks: setMarks,
    downloadWeight: EXPORT_WEIGHT,
    handler: (deps, download) => resultSetLeadsRoute(deps, 'resultSet', download),
  }),
  ...leadListing('/api/v1/leads', {
    operationId: 'listLeads',
    summary: "Every lead of the account: oldest job first, each job's in delivery order",
    description: 'Every lead delivered to the account, across its jobs, narrowed by the filters.',
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
