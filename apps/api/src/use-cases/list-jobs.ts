import { listAccountJobs } from '@leadgen/db';
import type { JobStatus, Source } from '@leadgen/domain';
import type { ApiDependencies } from '../dependencies';
import { encodeCursor } from '../http/paging';
import { presentJobSummary } from '../presenters/job-presenter';

/** What the job listing takes (GET /api/v1/leads/jobs validates its query into this). */
export interface ListJobsQuery {
  limit: number;
  cursor?: { createdAt: Date; id: string };
  status?: JobStatus[];
  source?: Source;
  createdAfter?: Date;
  createdBefore?: Date;
  batchId?: string;
}

export interface JobsPage {
  items: Array<ReturnType<typeof presentJobSummary>>;
  nextCursor: string | null;
}

/** GET /api/v1/leads/jobs: one page of the account's jobs, newest first, and the cursor of the next. */
export async function listJobs(deps: ApiDependencies, accountId: string, query: ListJobsQuery): Promise<JobsPage> {
  const filter = {
    statuses: query.status ?? null,
    source: query.source ?? null,
    createdAfter: query.createdAfter ?? null,
    createdBefore: query.createdBefore ?? null,
    batchId: query.batchId ?? null,
  };
  // One more than asked: whether a next page exists is known without a second query.
  const jobs = await listAccountJobs(deps.db.reads, accountId, filter, query.cursor ?? null, query.limit + 1);
  const page = jobs.slice(0, query.limit);
  const last = page.at(-1);
  return {
    items: page.map((job) => presentJobSummary(job, deps.config.http.publicBaseUrl)),
    nextCursor: jobs.length > query.limit && last ? encodeCursor('j', [last.createdAt.toISOString(), last.id]) : null,
  };
}
