import type { RequestHandler, Router } from 'express';
import { errors } from '@leadgen/domain';
import type { ApiDependencies } from '../dependencies';
import { problemResponse } from '../openapi/openapi-schemas';
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

/** The OpenAPI operation of the endpoint: what it takes and answers (the Problem `default` is added for all). */
export interface Operation {
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  security?: unknown[];
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
  /** Parameters shared by every method of the path (the OpenAPI path item's). */
  pathParameters?: unknown[];
  handler: (deps: ApiDependencies, runtime: RouteRuntime) => RequestHandler;
  operation: Operation;
}

export interface MountParts {
  deps: ApiDependencies;
  runtime: RouteRuntime;
  auth: RequestHandler;
  rateLimits: Record<RateLimitPolicyName, RequestHandler>;
  jsonBody: (limitBytes: number, options?: { maxEntries?: number }) => RequestHandler;
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
      if (endpoint.rateLimit) chain.push(parts.rateLimits[endpoint.rateLimit.policy]);
      if (endpoint.body) {
        const { limitBytes, maxEntries } = endpoint.body;
        chain.push(maxEntries === undefined ? parts.jsonBody(limitBytes) : bulkJsonBody(limitBytes));
      }
      chain.push(endpoint.handler(parts.deps, parts.runtime));
      target[endpoint.method](at, ...chain);
    }
    // In one order whatever the table's (GET before POST …), as the 405s always listed them.
    const allow = METHOD_ORDER.filter((m) => methods.some((e) => e.method === m)).map((m) => m.toUpperCase());
    target.all(at, () => {
      throw errors.methodNotAllowed(allow);
    });
  }
}

const KIB = 1024;
const sizeOf = (bytes: number) => (bytes % (KIB * KIB) === 0 ? `${bytes / KIB / KIB} MiB` : `${Math.round(bytes / KIB)} KiB`);

/**
 * The document's `paths`: each endpoint's operation, with what the table says of it written where a
 * reader looks (`security: []` for a public one, the rate-limit window as `x-rate-limit`, the body
 * limit as `x-body-limit`), the `default` Problem (any path can meet the protocol-level problems: malformed_request, request_timeout,
 * expectation_failed, headers_too_large, a 503) and the X-Request-Id parameter.
 */
export function openApiPaths(endpoints: readonly Endpoint[]): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, methods] of byPath(endpoints)) {
    const item: Record<string, unknown> = {};
    const shared = methods.find((e) => e.pathParameters)?.pathParameters;
    if (shared) item.parameters = shared;
    for (const endpoint of methods) {
      const { operation } = endpoint;
      const body = endpoint.body?.limitBytes;
      item[endpoint.method] = {
        ...operation,
        ...(endpoint.auth === 'public' ? { security: [] } : {}),
        parameters: [...(operation.parameters ?? []), { $ref: '#/components/parameters/RequestId' }],
        responses: {
          ...operation.responses,
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
