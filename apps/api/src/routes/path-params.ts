import Joi from 'joi';
import { ID_PATTERNS, errors, monitorErrors, scopeErrors, webhookErrors } from '@leadgen/domain';
import { idParam } from '../http/request-validation';

// The ids a path names, each with the answer a malformed one gets (the 404 of an unknown one). The route
// table validates `request.params` with these and writes the path's OpenAPI parameters from them
// (description, example).

const ids = {
  jobId: idParam(ID_PATTERNS.job, errors.jobNotFound).description('The job id (`job_…`)').example('job_0123456789abcdefghijklmn'),
  batchId: idParam(ID_PATTERNS.batch, errors.batchNotFound).description('The batch id (`bat_…`)').example('bat_0123456789abcdefghijklmn'),
  // A result set unknown or malformed is the job's 404 (job_not_found), as its job's leads answer.
  resultSetId: idParam(ID_PATTERNS.resultSet, errors.jobNotFound)
    .description('The result set id (`rs_…`)')
    .example('rs_0123456789abcdefghijklmn'),
  webhookEndpointId: idParam(ID_PATTERNS.webhookEndpoint, webhookErrors.endpointNotFound)
    .description('The webhook endpoint id (`whep_…`)')
    .example('whep_0123456789abcdef01234567'),
  deliveryId: idParam(ID_PATTERNS.webhookDelivery, webhookErrors.deliveryNotFound)
    .description('The delivery id (`msg_…`), its webhook-id header')
    .example('msg_0123456789abcdef0123456789abcdef'),
  monitorId: idParam(ID_PATTERNS.monitor, monitorErrors.notFound)
    .description('The monitor id (`mon_…`)')
    .example('mon_0123456789abcdefghijklmn'),
  apiKeyId: idParam(ID_PATTERNS.apiKey, scopeErrors.apiKeyNotFound).description('The key id (`key_…`)').example('key_0123456789abcdefghij'),
};

export const jobPath = Joi.object({ jobId: ids.jobId });
export const batchPath = Joi.object({ batchId: ids.batchId });
export const resultSetPath = Joi.object({ resultSetId: ids.resultSetId });
export const webhookEndpointPath = Joi.object({ id: ids.webhookEndpointId });
export const webhookDeliveryPath = Joi.object({ id: ids.webhookEndpointId, deliveryId: ids.deliveryId });
export const jobDeliveryPath = Joi.object({ jobId: ids.jobId, deliveryId: ids.deliveryId });
export const monitorPath = Joi.object({ id: ids.monitorId });
export const keyPath = Joi.object({ keyId: ids.apiKeyId });

export type JobPath = { jobId: string };
export type BatchPath = { batchId: string };
export type ResultSetPath = { resultSetId: string };
export type IdPath = { id: string };
export type KeyPath = { keyId: string };
export type DeliveryPath = { id: string; deliveryId: string };
export type JobDeliveryPath = { jobId: string; deliveryId: string };
