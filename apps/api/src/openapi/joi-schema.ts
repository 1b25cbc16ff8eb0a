import type Joi from 'joi';
import parseJoi from 'joi-to-json';

// Request bodies in the document are derived from the Joi schemas that validate them (decision 029), so a
// body's shape is declared once. A Joi node marked `.meta({ 'x-component': 'Name' })` is published as
// `#/components/schemas/Name` and referred to; unless a component of that name is written by hand (a
// shape also answered in responses, or refined further: GenerationRequestInput, MonitorSchedule), its
// derived form is the component.

type Schema = Record<string, unknown>;

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
    // Joi's xor / nand between keys come out as `if`/`then: false`/`else` and `not`, which linters and
    // generators misread; the schema's description says the rule.
    if (source.type === 'object' && ['if', 'then', 'else', 'not'].includes(key)) continue;
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

/** A Joi schema as OpenAPI 3.1 JSON Schema, tidied, its marked nodes still inline (with `x-component`). */
export function joiToOpenApi(schema: Joi.Schema): Schema {
  const out = tidy(parseJoi(schema, 'open-api-3.1')) as Schema;
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
