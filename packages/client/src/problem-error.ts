import type { Problem, ProblemCode } from './api-bodies.js';
import type { ResponseMeta } from './response-meta.js';

/**
 * What an error answer carried: the API's Problem Details, or, for an answer that is not one (a proxy's
 * error page), the same shape with the code `http_<status>`.
 */
export type ErrorProblem = Problem | (Omit<Problem, 'code'> & { code: `http_${number}` });

/** An answer of the API that is an error: switch on `code`; `meta` has the request id and rate limit. */
export class LeadgenError extends Error {
  readonly status: number;
  readonly code: ProblemCode | `http_${number}`;
  readonly problem: ErrorProblem;
  readonly meta: ResponseMeta | null;

  constructor(problem: ErrorProblem, meta: ResponseMeta | null = null) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
    this.name = 'LeadgenError';
    this.status = problem.status;
    this.code = problem.code;
    this.problem = problem;
    this.meta = meta;
  }
}

/** No answer within the timeout (`timeoutMs`), or a job not terminal within `maxWaitMs`. */
export class LeadgenTimeoutError extends Error {
  /** what timed out: one request, or waiting for a job */
  readonly kind: 'request' | 'wait';
  readonly timeoutMs: number;
  /** the job waited for (kind `wait`) */
  readonly jobId: string | null;

  constructor(kind: 'request' | 'wait', timeoutMs: number, jobId: string | null = null) {
    super(kind === 'request' ? `no answer within ${timeoutMs} ms` : `job ${jobId} not terminal within ${timeoutMs} ms`);
    this.name = 'LeadgenTimeoutError';
    this.kind = kind;
    this.timeoutMs = timeoutMs;
    this.jobId = jobId;
  }
}
