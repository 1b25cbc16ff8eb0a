import { SOURCES } from '@leadgen/domain';
import type { Endpoint } from '../http/route-table';
import { openApiRoute } from '../openapi/openapi-route';
import { d, int, object, str } from '../openapi/openapi-schemas';
import { apiReadiness } from '../readiness';
import { healthRoute, readyRoute } from './health-route';
import { linkedinCountriesRoute, shopifyCategoriesRoute, tariffsRoute } from './meta-route';

// Public reference data, health, and the document itself: no key, no rate limit.

export const metaEndpoints: Endpoint[] = [
  {
    method: 'get',
    path: '/api/v1/meta/linkedin-countries',
    auth: 'public',
    handler: () => linkedinCountriesRoute,
    operation: {
      tags: ['meta'],
      operationId: 'getLinkedinCountries',
      summary: 'The governed list a linkedin `state` is checked against',
      description: 'The countries a linkedin job may name in `state` (a code or the English name).',
      responses: {
        200: {
          description: 'The list',
          content: {
            'application/json': {
              schema: object({
                name: d("The list's name", str),
                countries: d('Its countries', {
                  type: 'array',
                  items: object({ code: d('ISO 3166-1 alpha-2 code', str), name: d('English name', str) }),
                }),
              }),
            },
          },
        },
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/meta/shopify-categories',
    auth: 'public',
    handler: () => shopifyCategoriesRoute,
    operation: {
      tags: ['meta'],
      operationId: 'getShopifyCategories',
      summary: 'The Store Leads category paths a shopify `category` is mapped onto',
      description:
        "Every top-level and second-level path of Store Leads' taxonomy (Google's content categories, Shopping's children raised to the top). A shopify `category` may be a path, its label or free text in several languages; free text naming none of them is refused with the three nearest paths.",
      responses: {
        200: {
          description: 'The taxonomy',
          content: {
            'application/json': {
              schema: object({
                retrieved: d('When the taxonomy was read from its sources (YYYY-MM-DD)', str),
                categories: d('Its paths', {
                  type: 'array',
                  items: object({
                    path: d('The Store Leads path, as sent in `f:cat` and named on each lead as `store.categoryPath`', str),
                    name: d('Its last segment', str),
                    label: d('Its segments joined by " > "', str),
                    confirmed: d("Whether a Store Leads source shows the path as spelled (else it is derived from Google's list)", {
                      type: 'boolean',
                    }),
                    alsoSpelled: d('Other spellings accepted and also sent, where the exact one is not confirmed', {
                      type: 'array',
                      items: str,
                    }),
                  }),
                }),
              }),
            },
          },
        },
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/meta/tariffs',
    auth: 'public',
    handler: () => tariffsRoute,
    operation: {
      tags: ['meta'],
      operationId: 'getTariffs',
      summary: 'Credits per delivered item and minimum charge per job, per source',
      description:
        'What a job costs: a terminal job is charged `perItem` per delivered lead, and at least `minimum` when it delivered any.',
      responses: {
        200: {
          description: 'The tariffs',
          content: {
            'application/json': {
              schema: object({
                tariffs: d(
                  'One tariff per source',
                  object(
                    Object.fromEntries(
                      SOURCES.map((s) => [
                        s,
                        d(
                          `The ${s} tariff`,
                          object({ perItem: d('Credits per delivered lead', int()), minimum: d('Least charge of a job', int()) }),
                        ),
                      ]),
                    ),
                  ),
                ),
              }),
            },
          },
        },
      },
    },
  },
  {
    method: 'get',
    path: '/healthz',
    auth: 'public',
    handler: () => healthRoute,
    operation: {
      tags: ['meta'],
      operationId: 'health',
      summary: 'Liveness',
      description: 'Answers while the process runs, whatever the state of PostgreSQL and Redis.',
      responses: {
        200: {
          description: 'The process answers',
          content: { 'application/json': { schema: object({ status: d('Always `ok`', { const: 'ok' }) }) } },
        },
      },
    },
  },
  {
    method: 'get',
    path: '/readyz',
    auth: 'public',
    handler: (deps, runtime) => readyRoute(apiReadiness(deps, runtime.isShuttingDown)),
    operation: {
      tags: ['meta'],
      operationId: 'ready',
      summary:
        "Readiness: PostgreSQL answers with the schema migrated, Redis runs a script on each queue's own slot (for load balancers; not Problem Details)",
      description:
        "For load balancers: 200 when PostgreSQL answers with the schema migrated and Redis runs a script on each queue's own slot, 503 otherwise or while shutting down.",
      responses: {
        ...Object.fromEntries(
          [200, 503].map((status) => [
            status,
            {
              description: status === 200 ? 'Ready' : 'Not ready, or shutting down',
              content: {
                'application/json': {
                  schema: object(
                    {
                      status: d('`ready`, or `unavailable` (then `checks` says which dependency)', str),
                      checks: d('Each dependency\'s state, e.g. `{"postgres":"ok","redis":"ok"}`', {
                        type: 'object',
                        additionalProperties: str,
                      }),
                      detail: d('What failed, when something did', str),
                    },
                    ['status', 'checks'],
                    { additionalProperties: true },
                  ),
                },
              },
            },
          ]),
        ),
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/openapi.json',
    auth: 'public',
    handler: () => openApiRoute(),
    operation: {
      tags: ['meta'],
      operationId: 'getOpenApi',
      summary: 'This document',
      description: 'The OpenAPI 3.1 document of this API (the one /docs shows).',
      responses: {
        200: {
          description: 'OpenAPI 3.1',
          content: {
            'application/json': {
              schema: object(
                {
                  openapi: d('The OpenAPI version, `3.1.0`', str),
                  info: d(
                    'Title, version, description, license',
                    object({ title: d("The API's name", str), version: d("The document's version", str) }, ['title', 'version'], {
                      additionalProperties: true,
                    }),
                  ),
                  paths: d('The operations, by path', { type: 'object', additionalProperties: { type: 'object' } }),
                  components: d('Schemas, parameters, responses and headers the paths refer to', { type: 'object' }),
                  webhooks: d('The events this service sends', { type: 'object' }),
                },
                ['openapi', 'info', 'paths'],
                { additionalProperties: true },
              ),
            },
          },
        },
      },
    },
  },
];
