import type { components, operations } from './openapi-types.js';

// The API's bodies by name, every one taken from the types generated from the OpenAPI document
// (openapi-types.ts), so the client states no shape of its own and needs nothing else to compile.
type Schemas = components['schemas'];

/** What `generate` sends: defaults (`source`, `maxResults`) may be left out. */
export type GenerationRequest = Schemas['GenerationRequest'];
/** A job as GET answers it: `terminal` and `leads` exactly when the status is terminal. */
export type JobBody = Schemas['Job'];
/** A job that has ended (COMPLETE, PARTIAL, EMPTY, FAILED, CANCELLED), with its `terminal` object and `leads`. */
export type TerminalJob = Extract<JobBody, { terminal: object }>;
/** A job of a listing: the job body without `leads`. */
export type JobSummary = Schemas['JobSummary'];
/** The 202 body of a generate call still under way. */
export type AcceptedBody = Schemas['Accepted'];
export type Lead = Schemas['Lead'];
/** A delivered lead and where it belongs (lead listings and JSON Lines exports). */
export type LeadItem = Schemas['LeadItem'];
/** A page of `GET /api/v1/leads/jobs`; `nextCursor` is null on the last page. */
export type JobPage = operations['listJobs']['responses'][200]['content']['application/json'];
export type JobStatus = JobBody['status'];
export type Source = JobBody['source'];
/** RFC 9457 Problem Details as the API sends them; `code` is stable (docs/errors.md). */
export type Problem = Schemas['Problem'];
export type ProblemCode = Problem['code'];
