import type { Request, Response } from 'express';
import type { Source } from '@leadgen/domain';
import { copyResultSetLeads, estimateAccountLeads, estimateResultSetLeads, type LeadRow } from '@leadgen/db';
import { AccountExportWalk } from '../../account-export-walk';
import type { ApiDependencies } from '../../dependencies';
import { authenticatedAccount } from '../../http/authenticate';
import { encodeCursor, linkNext, nextPageUrl } from '../../http/paging';
import type { Valid } from '../../http/request-validation';
import { exportPacing } from '../../http/export-pacing';
import { releaseInFlight } from '../../http/in-flight-limit';
import { chargeRateLimit, costOfEntries } from '../../http/rate-limit';
import { copiedPart, exportFormat, streamExport, type ExportOutcome } from '../../lead-export';
import { holdExportSlot } from '../../use-cases/export-slots';
import { presentLeadItemJson } from '../../presenters/lead-presenter';
import { audit } from '../../use-cases/audit-trail';
import { EXPORT_CHUNK, readAccountLeads, readResultSet } from '../../use-cases/read-leads';
import type { JobPath, ResultSetPath } from '../path-params';
import type { AccountLeadsQuery, ResultSetQuery } from './leads-schema';

type DownloadFormat = 'csv' | 'jsonl';

/** The JSON page: items spliced from the stored records, never parsed and serialised again. */
function sendPage(
  req: Request,
  res: Response,
  deps: ApiDependencies,
  head: Record<string, unknown>,
  items: LeadRow[],
  nextCursor: string | null,
) {
  res.setHeader('Cache-Control', 'no-store');
  if (nextCursor) res.setHeader('Link', linkNext(nextPageUrl(req, deps.config.http.publicBaseUrl, nextCursor)));
  const start = JSON.stringify({ ...head, nextCursor });
  res
    .status(200)
    .type('application/json')
    .send(`${start.slice(0, -1)},"items":[${items.map(presentLeadItemJson).join(',')}]}`);
}

/**
 * GET /api/v1/leads/jobs/{jobId}/leads and GET /api/v1/leads/result-sets/{id}: the same set, in delivery
 * order. `download` is the format of the `.csv` / `.jsonl` paths; without it `?format=` or Accept choose.
 */
export function resultSetLeadsRoute(deps: ApiDependencies, by: 'job' | 'resultSet', download?: DownloadFormat) {
  return async (req: Request, res: Response, { params, query }: Valid<Partial<JobPath & ResultSetPath>, ResultSetQuery>): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    const id = (by === 'job' ? params.jobId : params.resultSetId)!;
    const format = download ?? exportFormat(req, query.format);
    const after = query.cursor ?? -1;
    const release = format === 'json' ? null : await holdExportSlot(deps, account.id);
    try {
      await resultSetAnswer(req, res, deps, { account: account.id, by, id, after, format, limit: query.limit });
    } finally {
      await release?.();
    }
  };
}

/** One result set's answer: a JSON page, or the whole set streamed (while the caller holds an export place). */
async function resultSetAnswer(
  req: Request,
  res: Response,
  deps: ApiDependencies,
  ask: { account: string; by: 'job' | 'resultSet'; id: string; after: number; format: 'json' | DownloadFormat; limit: number },
): Promise<void> {
  const { account, by, id, after, format, limit } = ask;
  // A download reads no lead here: only the job (its 404, its 410), then its leads by COPY.
  const selection = await readResultSet(deps, account, by, id, after, format === 'json' ? limit + 1 : 0);
  // While the job runs the set grows: say so in every format (the JSON body has it too).
  const marks = { 'Result-Complete': String(selection.complete), 'Job-Status': selection.status };
  if (format === 'json') {
    const page = selection.leads.slice(0, limit);
    const more = selection.leads.length > limit;
    const head = { jobId: selection.jobId, resultSetId: selection.resultSetId, status: selection.status, complete: selection.complete };
    for (const [name, value] of Object.entries(marks)) res.setHeader(name, value);
    sendPage(req, res, deps, head, page, more ? encodeCursor('p', [page.at(-1)!.position]) : null);
    return;
  }
  // Charged and admitted by its cost before a byte streams (issue 31, finding 3); what a running job adds meanwhile after.
  const estimate = await estimateResultSetLeads(selection.side, account, by, id, after);
  await chargeRateLimit(res, costOfEntries(estimate));
  // A download is paced instead (decision 049): it gives its in-flight place back (decision 050) as it starts streaming.
  releaseInFlight(res);
  // Rendered by PostgreSQL (COPY): a set deleted meanwhile (expired, erased) ends the download, not an error mid-stream.
  // Paced: it yields while anything else waits (decision 049).
  const pace = exportPacing.start(deps.db.sql);
  let outcome: ExportOutcome;
  try {
    const copy = async (from: number) =>
      copiedPart(await copyResultSetLeads(selection.side, account, by, id, from, await pace.chunk(EXPORT_CHUNK), format, pace.pace));
    outcome = await streamExport(res, format, {
      first: await copy(after),
      next: (part) => copy(part.last!.position),
      filename: `leads-${selection.jobId}`,
      headers: marks,
      settle: (outcome) =>
        audit(deps, res.locals, account, 'leads.exported', {
          selection: { jobId: selection.jobId, resultSetId: selection.resultSetId },
          format,
          ...outcome,
        }),
    });
  } finally {
    pace.end();
  }
  await chargeRateLimit(res, costOfEntries(outcome.leads) - costOfEntries(estimate), { refuse: false });
}

/** GET /api/v1/leads (and `.csv` / `.jsonl`): every lead delivered to the account, oldest job first, each job's in delivery order. */
export function accountLeadsRoute(deps: ApiDependencies, download?: DownloadFormat) {
  return async (req: Request, res: Response, { query }: Valid<unknown, AccountLeadsQuery>): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    const format = download ?? exportFormat(req, query.format);
    const filter = {
      source: (query.source ?? null) as Source | null,
      jobId: query.jobId ?? null,
      createdAfter: query.createdAfter ?? null,
      createdBefore: query.createdBefore ?? null,
    };
    if (format === 'json') {
      const first = await readAccountLeads(deps, account.id, filter, query.cursor ?? null, query.limit + 1);
      const page = first.slice(0, query.limit);
      const more = first.length > query.limit;
      const last = page.at(-1);
      const cursor = more && last ? encodeCursor('l', [last.jobCreatedAt.toISOString(), last.jobId, last.position]) : null;
      sendPage(req, res, deps, {}, page, cursor);
      return;
    }
    const release = await holdExportSlot(deps, account.id);
    let outcome: ExportOutcome;
    let estimate: number;
    let pace: ReturnType<typeof exportPacing.start> | null = null;
    let walk: AccountExportWalk | null = null;
    try {
      // Charged and admitted by its cost before a byte streams (issue 31, finding 3).
      estimate = await estimateAccountLeads(deps.db.reads, account.id, filter, query.cursor ?? null);
      await chargeRateLimit(res, costOfEntries(estimate));
      releaseInFlight(res); // paced instead (decision 049), as above
      // Rendered by PostgreSQL (COPY, decision 043): the API passes each chunk's bytes on, yielding while anything else
      // waits (decision 049).
      const paced = exportPacing.start(deps.db.sql);
      pace = paced;
      // Two chunks' COPYs at once while nothing else waits, one small chunk at a time while anything does (issue 39).
      walk = new AccountExportWalk(deps.db.reads, account.id, filter, query.cursor ?? null, format, EXPORT_CHUNK, paced);
      const reading = walk;
      const first = copiedPart(await reading.next());
      // The selection as the client asked for it (no lead in it): which leads went out is known from the jobs.
      const selection = {
        ...filter,
        createdAfter: filter.createdAfter?.toISOString() ?? null,
        createdBefore: filter.createdBefore?.toISOString() ?? null,
        after: query.cursor ? 'cursor' : null,
      };
      outcome = await streamExport(res, format, {
        first,
        next: async () => copiedPart(await reading.next()),
        filename: `leads-${new Date().toISOString().slice(0, 10)}`,
        settle: (settled) => audit(deps, res.locals, account.id, 'leads.exported', { selection, format, ...settled }),
      });
    } finally {
      // A client that went (or a failed read) stops the walk: no read starts after this one.
      walk?.stop();
      pace?.end();
      await release();
    }
    await chargeRateLimit(res, costOfEntries(outcome.leads) - costOfEntries(estimate), { refuse: false });
  };
}
