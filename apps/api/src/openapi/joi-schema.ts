import type Joi from 'joi';
import parseJoi from 'joi-to-json';

// Request bodies in the document are derived from the Joi schemas that validate them (decision 029), so a
// body's shape is declared once. A Joi node marked `.meta({ 'x-component': 'Name' })` is published as
// `#/components/schemas/Name` and referred to; unless a component of that name is written by hand (a
// shape also answered in responses, or refined further: GenerationRequestInput, MonitorSchedule), its
// derived form is the component. Query and path parameters are derived the same way, one parameter a key of the
// entry's `request.query` / `request.params` (parametersOf).

type Schema = Record<string, unknown>;

/**
 * Joi's `xor` (exactly one of the keys) and `oxor` (at most one) as JSON Schema: a `oneOf` of presence rules,
 * `{ required: [key] }` a key (and, for `oxor`, a branch for none of them). joi-to-json writes `xor` as
 * `if`/`then: false`/`else` and `oxor` with a nested `oneOf` of every pair, which generators misread. A branch
 * has no `type` of its own, so generators type it `unknown` and the object's own properties stand.
 */
const PRESENCE_RULES = {
  xor: (schema: Schema, dependency: { peers: string[] }) => {
    schema.oneOf = dependency.peers.map((peer) => ({ required: [peer] }));
  },
  oxor: (schema: Schema, dependency: { peers: string[] }) => {
    const each = dependency.peers.map((peer) => ({ required: [peer] }));
    schema.oneOf = [...each, { not: { anyOf: each } }];
  },
};

/** A branch that only says which keys are present or not (PRESENCE_RULES): a `oneOf` of those means exactly one. */
const isPresenceRule = (branch: unknown): boolean =>
  !!branch &&
  typeof branch === 'object' &&
  Object.keys(branch).every((key) => key === 'required' || key === 'not') &&
  Object.keys(branch).length > 0;

/**
 * joi-to-json writes a Joi `when` as `oneOf` of its branches under a type that allows anything, and
 * Joi's `forbidden` (a field of another source) as an `anyOf` branch `{ not: {} }`. Generators type such
 * a field `unknown`, so the catch-all type and the impossible branch go. `default`s go too: a generator
 * would make those fields required in the body (openapi-typescript does by default); the descriptions say them.
 */
export function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (!node || typeof node !== 'object') return node;
  const out: Schema = {};
  const source = node as Schema;
  // A Joi alternatives' conditional (a batch of requests, or an area batch) comes out as `if`/`then`/`else`:
  // documented as either branch, the one the body's fields choose.
  if (source.type === undefined && source.if !== undefined && source.then !== undefined && source.else !== undefined) {
    const rest: Schema = { ...source, anyOf: [source.then, source.else] };
    for (const key of ['if', 'then', 'else']) delete rest[key];
    return tidy(rest);
  }
  for (const [key, value] of Object.entries(source)) {
    if (key === 'type' && Array.isArray(value) && value.length === 6 && source.oneOf) continue;
    if (key === 'default') continue;
    // Joi's nand (and with, without) between keys come out as `if`/`then`/`else` and `not`, which linters and
    // generators misread; the schema's description says the rule. xor and oxor are PRESENCE_RULES' `oneOf`.
    if (source.type === 'object' && ['if', 'then', 'else', 'not'].includes(key)) continue;
    // Joi's xor / oxor (PRESENCE_RULES): exactly one branch, as Joi checks it.
    if (key === 'oneOf' && Array.isArray(value) && value.every(isPresenceRule)) {
      out.oneOf = value;
      continue;
    }
    if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) {
      const possible = value.filter((branch) => JSON.stringify(branch) !== '{"not":{}}');
      if (possible.length === 1) Object.assign(out, tidy(possible[0]));
      else out.anyOf = tidy(possible);
      continue;
    }
    out[key] = tidy(value);
  }
  return out;
}

interface Described {
  type?: string;
  rules?: Array<{ name: string; args?: { limit?: number } }>;
  keys?: Record<string, Described>;
  items?: Described[];
}

/** What joi-to-json leaves out: an object's least and most keys (Joi's `object.min` / `max`), at any depth. */
function objectBounds(joi: Described, out: Schema): void {
  if (joi.type === 'object' && out.type === 'object') {
    for (const rule of joi.rules ?? []) {
      if (rule.name === 'min') out.minProperties = rule.args?.limit;
      if (rule.name === 'max') out.maxProperties = rule.args?.limit;
    }
    const properties = (out.properties ?? {}) as Record<string, Schema>;
    for (const [name, key] of Object.entries(joi.keys ?? {})) if (properties[name]) objectBounds(key, properties[name]);
  }
  if (joi.type === 'array' && joi.items?.length === 1 && out.items && typeof out.items === 'object')
    objectBounds(joi.items[0]!, out.items as Schema);
}

/**
 * A Joi schema as OpenAPI 3.1 JSON Schema, tidied, its marked nodes still inline (with `x-component`). A format
 * the schema states is kept: Joi's own (`.uri()`, `.email()`, `.isoDate()`, `Joi.date().iso()` …, which
 * joi-to-json translates) or, for a string a `.custom()` rule checks, `.meta({ format: 'uri' })`.
 */
export function joiToOpenApi(schema: Joi.Schema): Schema {
  const out = tidy(parseJoi(schema, 'open-api-3.1', {}, { logicalOpParser: PRESENCE_RULES })) as Schema;
  objectBounds(schema.describe() as Described, out);
  return out;
}

/**
 * The schema to write where a body is declared: marked nodes replaced by `$ref`s (keeping a description
 * given where they are used), each marked node's derived form added to `components`.
 */
export function requestBodySchema(schema: Joi.Schema, components: Record<string, Schema>): Schema {
  const refer = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(refer);
    if (!node || typeof node !== 'object') return node;
    const { 'x-component': name, ...rest } = node as Schema;
    const inner = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, refer(value)]));
    if (typeof name !== 'string') return inner;
    components[name] ??= inner;
    return { $ref: `#/components/schemas/${name}`, ...(typeof rest.description === 'string' ? { description: rest.description } : {}) };
  };
  return refer(joiToOpenApi(schema)) as Schema;
}

interface DescribedKey {
  type?: string;
  flags?: { description?: string; default?: unknown; presence?: string; result?: string };
  examples?: unknown[];
}

/**
 * The document's parameters of a query or path schema (the entry's `request.query`, `request.params`), one per
 * key, in the schema's order: the key's `.description()` and first `.example()` on the parameter, its derived
 * schema (with its `.default()`, which a parameter may state without a generator requiring it), `required` from
 * Joi's presence (every path parameter is). An array is the comma list the route table splits (`status=a,b`;
 * request-validation.ts). A key marked `.strip()` is taken and ignored, so it is not documented (a download's
 * `limit`).
 */
export function parametersOf(schema: Joi.ObjectSchema, where: 'query' | 'path'): Schema[] {
  const keys = (schema.describe() as { keys?: Record<string, DescribedKey> }).keys ?? {};
  const properties = (joiToOpenApi(schema).properties ?? {}) as Record<string, Schema>;
  return Object.entries(keys).flatMap(([name, key]) => {
    if (key.flags?.result === 'strip') return [];
    const { description, examples, ...derived } = properties[name]!;
    const byDefault = key.flags?.default;
    const required = where === 'path' || key.flags?.presence === 'required';
    return [
      {
        name,
        in: where,
        ...(description ? { description } : {}),
        ...(required ? { required: true } : {}),
        schema: { ...derived, ...(byDefault !== undefined && typeof byDefault !== 'function' ? { default: byDefault } : {}) },
        ...(key.type === 'array' && where === 'query' ? { style: 'form', explode: false } : {}),
        ...(Array.isArray(examples) && examples.length > 0 ? { example: examples[0] } : {}),
      },
    ];
  });
}
