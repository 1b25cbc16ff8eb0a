import express, { type RequestHandler } from 'express';
import { SUPPRESSION_UPLOAD_LIMIT, errors } from '@leadgen/domain';
import type { ApiDependencies } from './dependencies';
import { accessLog, rememberRouteBase, type RequestObserver } from './http/access-log';
import { keyAuthenticator } from './http/authenticate';
import { liveKeyDirectory } from './http/live-key-directory';
import { jsonBody } from './http/json-body';
import { protocolChecks } from './http/protocol-checks';
import { problemMiddleware } from './http/problem';
import { rateLimit } from './http/rate-limit';
import { requestId } from './http/request-id';
import { securityHeaders } from './http/security-headers';
import { accountRoute } from './routes/account-route';
import { auditEventsRoute } from './routes/audit-events/audit-events-route';
import { docsRouter, openApiRoute } from './openapi/openapi-route';
import { apiReadiness } from './readiness';
import { healthRoute, readyRoute } from './routes/health-route';
import { generateRoute } from './routes/leads/generate-route';
import { deleteSuppressionsRoute, getSuppressionsRoute, putSuppressionsRoute } from './routes/suppressions/suppressions-route';
import { cancelJobRoute, getJobRoute } from './routes/leads/jobs-route';
import { accountLeadsRoute, resultSetLeadsRoute } from './routes/leads/leads-route';
import { listJobsRoute } from './routes/leads/list-jobs-route';
import {
  batchJobsRoute,
  batchLeadsRoute,
  cancelBatchRoute,
  createBatchRoute,
  getBatchRoute,
  listBatchesRoute,
} from './routes/leads/batches-route';
import { linkedinCountriesRoute, tariffsRoute } from './routes/meta-route';
import { mountMonitorRoutes } from './routes/monitors/monitors-paths';
import { mountWebhookRoutes } from './routes/webhooks/webhooks-paths';

const SUPPRESSIONS_BODY_LIMIT_BYTES = 8 * 1024 * 1024;
// A batch of 1,000 requests, each up to a few KiB with LinkedIn filters: the batch route alone takes bodies this large.
const BATCH_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

export interface AppOptions {
  isShuttingDown?: () => boolean;
  /** mounted before the 404 handler, e.g. Bull Board for operators */
  extraRouters?: Array<{ path: string; handler: RequestHandler }>;
  /** told of every answered request (the metrics) */
  requestObservers?: RequestObserver[];
}

const methodNotAllowed =
  (...allow: string[]): RequestHandler =>
  () => {
    throw errors.methodNotAllowed(allow);
  };

export function createApp(deps: ApiDependencies, options: AppOptions = {}): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Which proxies' X-Forwarded-For is believed (TRUST_PROXY): req.ip is then the client behind them.
  app.set('trust proxy', deps.config.http.trustProxy);
  app.use(requestId);
  app.use(securityHeaders);
  app.use(protocolChecks);
  app.use(accessLog(options.requestObservers));

  app.get('/healthz', healthRoute);
  app.all('/healthz', methodNotAllowed('GET'));
  app.get('/readyz', readyRoute(apiReadiness(deps, options.isShuttingDown ?? (() => false))));
  app.all('/readyz', methodNotAllowed('GET'));

  const { redis, config, db } = deps;
  const keys = keyAuthenticator(db, {
    cacheMs: config.api.authCacheMs,
    throttle: { redis, keys: deps.producer.keys, perMinute: config.api.rateLimit.unknownKeyPerMin, directory: liveKeyDirectory(db) },
  });
  const auth = keys.authenticate;
  const redisKeys = deps.producer.keys;
  const generateLimit = rateLimit(redis, redisKeys, { name: 'generate', perMinute: config.api.rateLimit.generatePerMin }, keys);
  const readLimit = rateLimit(redis, redisKeys, { name: 'read', perMinute: config.api.rateLimit.readPerMin }, keys);

  const v1 = express.Router();
  v1.use(rememberRouteBase);
  v1.post('/leads/generate', auth, generateLimit, jsonBody(config.http.bodyLimitBytes), generateRoute(deps));
  v1.all('/leads/generate', methodNotAllowed('POST'));
  // Batches (decision 021): creating one counts as one generate call in the rate limit.
  v1.post('/leads/batches', auth, generateLimit, jsonBody(BATCH_BODY_LIMIT_BYTES), createBatchRoute(deps));
  v1.get('/leads/batches', auth, readLimit, listBatchesRoute(deps));
  v1.all('/leads/batches', methodNotAllowed('GET', 'POST'));
  v1.get('/leads/batches/:batchId', auth, readLimit, getBatchRoute(deps));
  v1.delete('/leads/batches/:batchId', auth, readLimit, cancelBatchRoute(deps));
  v1.all('/leads/batches/:batchId', methodNotAllowed('GET', 'DELETE'));
  v1.get('/leads/batches/:batchId/jobs', auth, readLimit, batchJobsRoute(deps));
  v1.all('/leads/batches/:batchId/jobs', methodNotAllowed('GET'));
  for (const download of ['csv', 'jsonl'] as const) {
    v1.get(`/leads/batches/:batchId/leads.${download}`, auth, readLimit, batchLeadsRoute(deps, download));
    v1.all(`/leads/batches/:batchId/leads.${download}`, methodNotAllowed('GET'));
  }
  v1.get('/leads/batches/:batchId/leads', auth, readLimit, batchLeadsRoute(deps));
  v1.all('/leads/batches/:batchId/leads', methodNotAllowed('GET'));
  v1.get('/leads/jobs', auth, readLimit, listJobsRoute(deps));
  v1.all('/leads/jobs', methodNotAllowed('GET'));
  v1.get('/leads/jobs/:jobId', auth, readLimit, getJobRoute(deps));
  v1.delete('/leads/jobs/:jobId', auth, readLimit, cancelJobRoute(deps));
  v1.all('/leads/jobs/:jobId', methodNotAllowed('GET', 'DELETE'));
  // Each listing of leads: the JSON page, and the downloads as their own paths (before `:id` would take `rs_….csv`).
  for (const download of ['csv', 'jsonl'] as const) {
    v1.get(`/leads/jobs/:id/leads.${download}`, auth, readLimit, resultSetLeadsRoute(deps, 'job', download));
    v1.all(`/leads/jobs/:id/leads.${download}`, methodNotAllowed('GET'));
    v1.get(`/leads/result-sets/:id.${download}`, auth, readLimit, resultSetLeadsRoute(deps, 'resultSet', download));
    v1.all(`/leads/result-sets/:id.${download}`, methodNotAllowed('GET'));
    v1.get(`/leads.${download}`, auth, readLimit, accountLeadsRoute(deps, download));
    v1.all(`/leads.${download}`, methodNotAllowed('GET'));
  }
  v1.get('/leads/jobs/:id/leads', auth, readLimit, resultSetLeadsRoute(deps, 'job'));
  v1.all('/leads/jobs/:id/leads', methodNotAllowed('GET'));
  v1.get('/leads/result-sets/:id', auth, readLimit, resultSetLeadsRoute(deps, 'resultSet'));
  v1.all('/leads/result-sets/:id', methodNotAllowed('GET'));
  v1.get('/leads', auth, readLimit, accountLeadsRoute(deps));
  v1.all('/leads', methodNotAllowed('GET'));
  v1.get('/account', auth, readLimit, accountRoute(deps));
  v1.all('/account', methodNotAllowed('GET'));
  // An upload of 100,000 entries is a few MiB: these routes alone take bodies that large.
  // Counted from the bytes before parsing: a body over the entry limit is never parsed nor normalised
  // (the lists' commas, plus the two between the lists).
  const suppressionsBody = jsonBody(SUPPRESSIONS_BODY_LIMIT_BYTES, { maxEntries: SUPPRESSION_UPLOAD_LIMIT + 2 });
  v1.get('/suppressions', auth, readLimit, getSuppressionsRoute(deps));
  v1.put('/suppressions', auth, readLimit, suppressionsBody, putSuppressionsRoute(deps));
  v1.delete('/suppressions', auth, readLimit, suppressionsBody, deleteSuppressionsRoute(deps));
  v1.all('/suppressions', methodNotAllowed('GET', 'PUT', 'DELETE'));
  // Webhooks (decision 016): endpoints, their deliveries, the default secret; the `read` rate limit.
  mountWebhookRoutes(v1, deps, { auth, limit: readLimit, body: jsonBody(config.http.bodyLimitBytes), methodNotAllowed });
  // Monitors (decision 022): a generation request on a schedule.
  mountMonitorRoutes(v1, deps, { auth, limit: readLimit, generateLimit, body: jsonBody(config.http.bodyLimitBytes), methodNotAllowed });
  v1.get('/audit-events', auth, readLimit, auditEventsRoute(deps));
  v1.all('/audit-events', methodNotAllowed('GET'));
  v1.get('/meta/linkedin-countries', linkedinCountriesRoute);
  v1.all('/meta/linkedin-countries', methodNotAllowed('GET'));
  v1.get('/meta/tariffs', tariffsRoute);
  v1.all('/meta/tariffs', methodNotAllowed('GET'));
  v1.get('/openapi.json', openApiRoute());
  v1.all('/openapi.json', methodNotAllowed('GET'));
  app.use('/api/v1', v1);
  app.use('/docs', docsRouter());

  for (const { path, handler } of options.extraRouters ?? []) app.use(path, rememberRouteBase, handler);

  app.use(() => {
    throw errors.notFound();
  });
  app.use(problemMiddleware);
  return app;
}
