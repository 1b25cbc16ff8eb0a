import type { Request, RequestHandler, Response, Router } from 'express';
import { errors, SCOPE_MEANINGS, type ApiKeyScope } from '@leadgen/domain';
import type { ApiDependencies } from '../dependencies';
import { parametersOf, requestBodySchema } from '../openapi/joi-schema';
import { hdr, pick, problemResponse } from '../openapi/openapi-schemas';
import { authenticatedAccount } from './authenticate';
import { checkRequest, requestChecker, type RequestSchemas, type Valid } from './request-validation';
import { bulkJsonBody } from './bulk-body';

// One declaration per endpoint (issue 30): what Express mounts, the 405 each path answers for the
// methods it lacks, and the OpenAPI operation the document serves all come from the same entry.

const METHOD_ORDER = ['get', 'post', 'put', 'patch', 'delete'] as const;
export type HttpMethod = (typeof METHOD_ORDER)[number];
export type RateLimitPolicyName = 'generate' | 'read';
type Schema = Record<string, unknown>;

/** What a handler may need besides the dependencies: the process's own state. */
export interface RouteRuntime {
  isShuttingDown: () => boolean;
}

/**
 * The OpenAPI operation of the endpoint: what it takes and answers. The Problems the entry implies (impliedProblems:
 * 400, 401, 405, 413, 415, 429, 500, 503), the key's 403 and the `default` Problem are added; `responses` holds the
 * rest (its successes, 404, 409 …).
 */
export interface Operation {
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  security?: unknown[];
  /** Header parameters only: the path's and the query's are derived from `request.params` and `request.query`. */
  parameters?: unknown[];
  requestBody?: Schema;
  responses: Record<string | number, unknown>;
}

export interface Endpoint {
  method: HttpMethod;
  /** As OpenAPI writes it, `{name}` for a parameter; Express gets `:name`, so handlers read `req.params.name`. */
  path: string;
  /** `key`: an API key (`Authorization: Bearer lg_…`); `public`: none (the document says `security: []`). */
  auth: 'key' | 'public';
  /** With `key`: the scope the key must hold (decision 036), else 403 insufficient_scope. Every key endpoint names one. */
  scope?: ApiKeyScope;
  /**
   * The per-account window the call counts in (docs/api.md#rate-limits). `weight` says what a call adds
   * beyond its own hit, which the handler charges once it knows the cost (chargeRateLimit).
   */
  rateLimit?: { policy: RateLimitPolicyName; weight?: string };
  /**
   * The largest body taken, and for bulk bodies the most JSON entries. A bulk body (with `maxEntries`) reaches its
   * handler as bytes (bulk-body.ts), which it charges and parses off the event loop; any other is parsed here.
   */
  body?: { limitBytes: number; maxEntries?: number };
  /**
   * What the table validates before the handler runs, each with its Joi schema: path parameters, query,
   * JSON body (http/request-validation.ts). The handler gets the validated values; the document's path and
   * query parameters and request body are derived from them (openapi/joi-schema.ts). A bulk body's schema is
   * its handler's to apply, off the event loop (the suppression uploads' thread), and documented here all the same.
   */
  request?: RequestSchemas;
  /** The handler's factory; the handler gets the request's validated `{ params, query, body }` as its third argument. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each entry's handler names its own types (Valid<P, Q, B>)
  handler: (deps: ApiDependencies, runtime: RouteRuntime) => Handler<any>;
  operation: Operation;
}

/** A handler of the table: what Express hands it, and the request's validated parts. */
export type Handler<V = Valid> = (req: Request, res: Response, input: V) => unknown;

/**
 * A handler of a keyed endpoint whose answers are never cached: it gets the account's id and the
 * validated request (`Cache-Control: no-store` is set first).
 */
export const accountRoute =
  <V>(handler: (req: Request, res: Response, deps: ApiDependencies, accountId: string, input: V) => Promise<void>) =>
  (deps: ApiDependencies) =>
  async (req: Request, res: Response, input: V) => {
    res.setHeader('Cache-Control', 'no-store');
    await handler(req, res, deps, authenticatedAccount(res.locals).id, input);
  };

export interface MountParts {
  deps: ApiDependencies;
  runtime: RouteRuntime;
  auth: RequestHandler;
  requireScope: (scope: ApiKeyScope) => RequestHandler;
  rateLimits: Record<RateLimitPolicyName, RequestHandler>;
  /** the account's requests in progress in this process (in-flight-limit.ts), after its key and before its rate limit */
  inFlight?: RequestHandler;
  jsonBody: (limitBytes: number) => RequestHandler;
  /** What request schemas may read of the deployment (Joi's `context`), e.g. whether plain http targets are accepted. */
  validationContext: Record<string, unknown>;
}

const expressPath = (path: string): string => path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');

/** The distinct paths in the table's order, with their endpoints. */
function byPath(endpoints: readonly Endpoint[]): Map<string, Endpoint[]> {
  const paths = new Map<string, Endpoint[]>();
  for (const endpoint of endpoints) {
    const same = paths.get(endpoint.path) ?? [];
    if (same.some((e) => e.method === endpoint.method)) throw new Error(`${endpoint.method} ${endpoint.path} is declared twice`);
    paths.set(endpoint.path, [...same, endpoint]);
  }
  return paths;
}

/**
 * Mounts each path's methods and then its 405, in the table's order: Express tries routes in order, so
 * a literal path (`/webhooks/default-secret`, `/result-sets/{id}.csv`) must come before the parameter that
 * would take it. Paths under `base` go to `router` (relative to it), the others to `root`.
 */
export function mountEndpoints(endpoints: readonly Endpoint[], targets: { root: Router; router: Router; base: string }, parts: MountParts) {
  for (const [path, methods] of byPath(endpoints)) {
    const [target, relative] = path.startsWith(`${targets.base}/`)
      ? [targets.router, path.slice(targets.base.length)]
      : [targets.root, path];
    const at = expressPath(relative);
    for (const endpoint of methods) {
      const chain: RequestHandler[] = [];
      if (endpoint.auth === 'key') chain.push(parts.auth);
      if (endpoint.auth === 'key' && parts.inFlight) chain.push(parts.inFlight);
      if (endpoint.rateLimit) chain.push(parts.rateLimits[endpoint.rateLimit.policy]);
      if (endpoint.auth === 'key') chain.push(parts.requireScope(scopeOf(endpoint)));
      if (endpoint.body) {
        const { limitBytes, maxEntries } = endpoint.body;
        chain.push(maxEntries === undefined ? parts.jsonBody(limitBytes) : bulkJsonBody(limitBytes));
      }
      const handler = endpoint.handler(parts.deps, parts.runtime);
      // A bulk body reaches its handler as bytes, which it validates with the same schema off the event loop
      // (suppression-upload-parser.ts): the table checks only its params and query.
      const bulk = endpoint.body?.maxEntries !== undefined;
      const check = requestChecker(bulk ? { ...endpoint.request, body: undefined } : (endpoint.request ?? {}));
      const context = parts.validationContext;
      chain.push(async (req, res) => {
        await handler(req, res, checkRequest(check, req, context));
      });
      target[endpoint.method](at, ...chain);
    }
    // In one order whatever the table's (GET before POST …), as the 405s always listed them.
    const allow = METHOD_ORDER.filter((m) => methods.some((e) => e.method === m)).map((m) => m.toUpperCase());
    target.all(at, () => {
      throw errors.methodNotAllowed(allow);
    });
  }
}

/** A key endpoint's scope; one without is a mistake in the table, refused when the app is made. */
function scopeOf(endpoint: Endpoint): ApiKeyScope {
  if (!endpoint.scope) throw new Error(`${endpoint.method.toUpperCase()} ${endpoint.path} takes a key but names no scope`);
  return endpoint.scope;
}

/** A key endpoint's 403: the scope it needs, and what else the operation answers 403 for (its own `403`). */
function forbidden(endpoint: Endpoint) {
  const scope = scopeOf(endpoint);
  const own = (endpoint.operation.responses[403] as { description?: string } | undefined)?.description;
  return problemResponse(
    `insufficient_scope (with \`requiredScope\`): the key lacks the scope \`${scope}\` (${SCOPE_MEANINGS[scope]})${own ? `; ${own}` : ''}`,
    { 'WWW-Authenticate': hdr('WWW-Authenticate') },
  );
}

/**
 * The Problem answers an entry implies by what it declares, so no entry restates them: 405 on every path (each
 * mounts one), 400 for a validated query or body, 401 for a key and 500/503 for its lookup, 429 for a key (its
 * requests in flight, decision 050) or a rate-limit window, 413 and 415 with a body. An operation's own answer for one of these statuses wins.
 */
function impliedProblems(endpoint: Endpoint): Record<string, unknown> {
  const codes: Array<Parameters<typeof pick>[number]> = [405];
  if (endpoint.request?.query || endpoint.request?.body) codes.push(400);
  if (endpoint.auth === 'key') codes.push(401, 429, 500, 503);
  else if (endpoint.rateLimit) codes.push(429);
  if (endpoint.body) codes.push(413, 415);
  return pick(...codes);
}

const KIB = 1024;
const sizeOf = (bytes: number) => (bytes % (KIB * KIB) === 0 ? `${bytes / KIB / KIB} MiB` : `${Math.round(bytes / KIB)} KiB`);

/** The path's parameters, from the Joi schema of its ids (routes/path-params.ts), shared by its methods. */
function pathParametersOf(methods: readonly Endpoint[]): unknown[] | undefined {
  const params = methods.find((e) => e.request?.params)?.request?.params;
  return params ? parametersOf(params, 'path') : undefined;
}

/** An operation's parameters: its query's, derived, then the headers it writes by hand. */
function operationParametersOf(endpoint: Endpoint): unknown[] {
  const written = endpoint.operation.parameters ?? [];
  const misplaced = written.filter((p) => ['query', 'path'].includes((p as { in?: string }).in ?? ''));
  if (misplaced.length > 0)
    throw new Error(`${endpoint.method.toUpperCase()} ${endpoint.path} writes query or path parameters by hand: declare them in request`);
  return [...(endpoint.request?.query ? parametersOf(endpoint.request.query, 'query') : []), ...written];
}

/**
 * The document's `paths`: each endpoint's operation, with what the table says of it written where a
 * reader looks (`security: []` for a public one, the rate-limit window as `x-rate-limit`, the body
 * limit as `x-body-limit`, the parameters and request body derived from their Joi schemas), the `default` Problem (any path
 * can meet the protocol-level problems: malformed_request, request_timeout, expectation_failed,
 * headers_too_large, a 503) and the X-Request-Id parameter. The request bodies' named parts are added
 * to `components` (openapi/joi-schema.ts).
 */
export function openApiPaths(
  endpoints: readonly Endpoint[],
  components: Record<string, Schema> = {},
): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, methods] of byPath(endpoints)) {
    const item: Record<string, unknown> = {};
    const shared = pathParametersOf(methods);
    if (shared) item.parameters = shared;
    for (const endpoint of methods) {
      const { operation } = endpoint;
      const body = endpoint.body?.limitBytes;
      const requestBody =
        operation.requestBody ??
        (endpoint.request?.body
          ? { required: true, content: { 'application/json': { schema: requestBodySchema(endpoint.request.body, components) } } }
          : undefined);
      item[endpoint.method] = {
        ...operation,
        // OpenAPI 3.1 lets a bearer scheme list the roles an operation needs: the key's scope.
        ...(endpoint.auth === 'public' ? { security: [] } : { security: [{ bearer: [scopeOf(endpoint)] }] }),
        ...(endpoint.auth === 'key' ? { 'x-required-scope': scopeOf(endpoint) } : {}),
        parameters: [...operationParametersOf(endpoint), { $ref: '#/components/parameters/RequestId' }],
        ...(requestBody ? { requestBody } : {}),
        responses: {
          ...impliedProblems(endpoint),
          ...operation.responses,
          ...(endpoint.auth === 'key' ? { 403: forbidden(endpoint) } : {}),
          default: problemResponse('Any other problem, as Problem Details (see docs/errors.md for every code)'),
        },
        ...(endpoint.rateLimit
          ? { 'x-rate-limit': { policy: endpoint.rateLimit.policy, weight: endpoint.rateLimit.weight ?? '1 per call' } }
          : {}),
        ...(body
          ? {
              'x-body-limit': {
                bytes: body,
                size: sizeOf(body),
                ...(endpoint.body?.maxEntries ? { maxEntries: endpoint.body.maxEntries } : {}),
              },
            }
          : {}),
      };
    }
    paths[path] = item;
  }
  return paths;
}
