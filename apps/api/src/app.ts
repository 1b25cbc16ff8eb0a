import express, { type RequestHandler } from 'express';
import { errors, OBJECTION_PAGE_PATH } from '@leadgen/domain';
import type { ApiDependencies } from './dependencies';
import { accessLog, rememberRouteBase, type RequestObserver } from './http/access-log';
import { exportPacing } from './http/export-pacing';
import { keyAuthenticator, requireScope } from './http/authenticate';
import { cors } from './http/cors';
import { liveKeyDirectory } from './http/live-key-directory';
import { jsonBody } from './http/json-body';
import { protocolChecks } from './http/protocol-checks';
import { closeOnUnreadBody } from './http/unread-body';
import { problemMiddleware } from './http/problem';
import { inFlightLimit } from './http/in-flight-limit';
import { rateLimit } from './http/rate-limit';
import { requestId } from './http/request-id';
import { mountEndpoints } from './http/route-table';
import { allowsPlainHttp } from './use-cases/webhook-target-check';
import { securityHeaders } from './http/security-headers';
import { docsRouter } from './openapi/openapi-route';
import { servedDocs } from './openapi/served-docs';
import { ENDPOINTS } from './routes/endpoints';
import { objectionConfirmationPage } from './routes/privacy/confirmation-page-route';

export interface AppOptions {
  isShuttingDown?: () => boolean;
  /** mounted before the 404 handler, e.g. Bull Board for operators */
  extraRouters?: Array<{ path: string; handler: RequestHandler }>;
  /** told of every answered request (the metrics) */
  requestObservers?: RequestObserver[];
}

export function createApp(deps: ApiDependencies, options: AppOptions = {}): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Which proxies' X-Forwarded-For is believed (TRUST_PROXY): req.ip is then the client behind them.
  app.set('trust proxy', deps.config.http.trustProxy);
  // Requests in flight, which downloads yield to (decision 049).
  app.use(exportPacing.track);
  app.use(requestId);
  app.use(securityHeaders);
  app.use(protocolChecks);
  app.use(closeOnUnreadBody);
  app.use(accessLog(options.requestObservers));

  const { redis, config, db } = deps;
  const keys = keyAuthenticator(db, {
    cacheMs: config.api.authCacheMs,
    throttle: { redis, keys: deps.producer.keys, perMinute: config.api.rateLimit.unknownKeyPerMin, directory: liveKeyDirectory(db) },
  });
  const redisKeys = deps.producer.keys;
  const generateLimit = rateLimit(redis, redisKeys, { name: 'generate', perMinute: config.api.rateLimit.generatePerMin }, keys);
  const readLimit = rateLimit(redis, redisKeys, { name: 'read', perMinute: config.api.rateLimit.readPerMin }, keys);

  const v1 = express.Router();
  v1.use(rememberRouteBase);
  // Browser origins of CORS_ALLOWED_ORIGINS, and preflights of the API's paths (decision 036); /api/v1 only.
  v1.use(cors(ENDPOINTS, '/api/v1', config.http.corsAllowedOrigins));
  // Every endpoint from its one declaration (routes/endpoints.ts), each path's 405 right after its methods.
  mountEndpoints(
    ENDPOINTS,
    { root: app, router: v1, base: '/api/v1' },
    {
      deps,
      runtime: { isShuttingDown: options.isShuttingDown ?? (() => false) },
      auth: keys.authenticate,
      requireScope,
      rateLimits: { generate: generateLimit, read: readLimit },
      inFlight: inFlightLimit({
        perAccount: config.api.rateLimit.inFlightPerAccount,
        waitMs: config.api.rateLimit.inFlightWaitMs,
        rest: config.api.rateLimit.inFlightRest,
        restMinBusy: config.api.rateLimit.inFlightRestMinBusy,
      }),
      jsonBody,
      // What request schemas read of the deployment: plain http webhook targets, the shortest monitor interval.
      validationContext: { allowHttp: allowsPlainHttp(deps), minIntervalMs: config.monitors.minIntervalMs },
    },
  );
  app.use('/api/v1', v1);
  // The Markdown docs the OpenAPI document links to (decision 036), then the interactive reference.
  app.use('/docs', servedDocs());
  app.use('/docs', docsRouter());
  // The page an objection's confirmation mail links to: HTML for a person, not an API operation (decision 042).
  app.use(OBJECTION_PAGE_PATH, objectionConfirmationPage(deps));

  for (const { path, handler } of options.extraRouters ?? []) app.use(path, rememberRouteBase, handler);

  app.use(() => {
    throw errors.notFound();
  });
  app.use(problemMiddleware);
  return app;
}
