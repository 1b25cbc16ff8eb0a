import type { Problem, ProblemCode } from './api-bodies.js';

/**
 * What an error answer carried: the API's Problem Details, or, for an answer that is not one (a proxy's
 * error page), the same shape with the code `http_<status>`.
 */
export type ErrorProblem = Problem | (Omit<Problem, 'code'> & { code: `http_${number}` });

/** An answer of the API that is an error: switch on `code`. */
export class LeadgenError extends Error {
  readonly status: number;
  readonly code: ProblemCode | `http_${number}`;
  readonly problem: ErrorProblem;

  constructor(problem: ErrorProblem) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
    this.name = 'LeadgenError';
    this.status = problem.status;
    this.code = problem.code;
    this.problem = problem;
  }
}
