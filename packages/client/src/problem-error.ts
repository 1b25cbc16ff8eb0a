/** RFC 9457 Problem Details as the API sends them; `code` is stable (docs/errors.md). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  requestId?: string;
  errors?: Array<{ pointer: string; detail: string }>;
  [member: string]: unknown;
}

/** An answer of the API that is an error: switch on `code`. */
export class LeadgenError extends Error {
  readonly status: number;
  readonly code: string;
  readonly problem: Problem;

  constructor(problem: Problem) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
    this.name = 'LeadgenError';
    this.status = problem.status;
    this.code = problem.code;
    this.problem = problem;
  }
}
