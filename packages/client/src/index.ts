export { LeadgenClient, type ClientOptions, type GenerateOptions, type GenerateRequest, type JobFilter, type LeadFilter } from './client.js';
export { LeadgenError, type Problem } from './problem-error.js';
export type { AcceptedBody, GenerationRequest, JobBody, JobStatus, JobSummary, Lead, LeadItem, Page, Source } from '@leadgen/domain';
