export { LeadgenClient, type ClientOptions, type GenerateOptions, type GenerateRequest, type JobFilter, type LeadFilter } from './client.js';
export { LeadgenError, type ErrorProblem } from './problem-error.js';
export type {
  AcceptedBody,
  GenerationRequest,
  JobBody,
  JobPage,
  JobStatus,
  JobSummary,
  Lead,
  LeadItem,
  Problem,
  ProblemCode,
  Source,
  TerminalJob,
} from './api-bodies.js';
/** Every path, operation and schema of the OpenAPI document, as openapi-typescript writes them (for openapi-fetch and the like). */
export type { components, operations, paths } from './openapi-types.js';
