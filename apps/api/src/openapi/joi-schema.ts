import type Joi from 'joi';
import parseJoi from 'joi-to-json';

// Request bodies in the document are derived from the Joi schemas that validate them (decision 029), so a
// body's shape is declared once. A Joi node marked `.meta({ 'x-component': 'Name' })` is published as
// `#/components/schemas/Name` and referred to; unless a component of that name is written by hand (a
// shape also answered in responses, or refined further: GenerationRequestInput, MonitorSchedule, Area), its
// derived form is the component. Query and path parameters are derived the same way, one parameter a key of the
// entry's `request.query` / `request.params` (parametersOf).

type Schema = Record<string, unknown>;

/** A Joi dependency between an object's keys (`describe().dependencies`): `xor`, `with`, `nand`, … */
interface Dependency {
  rel: string;
  key: string | null;
  peers: string[];
}

/**
 * joi-to-json's translations of Joi's dependencies are replaced: each is only recorded on the object (under
 * `x-dependencies`; several land in an `allOf` of such records) and `tidy` writes them once it sees the whole
 * object (dependenciesAsSchema).
 */
const recordDependency = (schema: Schema, dependency: Dependency) => {
  const { rel, key, peers } = dependency;
  schema['x-dependencies'] = [...((schema['x-dependencies'] as Dependency[] | undefined) ?? []), { rel, key, peers }];
};
const RECORDED = Object.fromEntries(['and', 'nand', 'or', 'xor', 'oxor', 'with', 'without'].map((rel) => [rel, recordDependency]));

const present = (keys: string[]) => keys.map((key) => ({ required: [key] }));
const absent = (keys: string[]): Schema => ({ properties: Object.fromEntries(keys.map((key) => [key, false])) });

/**
 * Joi's dependencies as JSON Schema that linters and generators read. redocly's
 * no-required-schema-properties-undefined flags a `required` whose keys neither its own schema nor the outermost of
 * the `allOf`/`anyOf`/`oneOf` around it defines, so a `not: { required }` or an `if: { required }` is flagged
 * anywhere, and a presence branch once its object is itself a branch (an area batch in the batch body's `anyOf`).
 * Hence only `required` next to the properties or in a `oneOf`/`anyOf` right under them, and absence as
 * `properties: { key: false }`:
 * - `or`: `anyOf` of presence branches; `xor`: their `oneOf`; `oxor`: that and a branch for none of them;
 * - `with`: `dependentRequired`;
 * - `without`: `dependentSchemas`, the key's peers absent when it is present;
 * - `nand`: `dependentSchemas` likewise, nested a key a level (a and b: not c), the last key absent.
 * An `xor` with `with`/`without` beside it (an area batch: area with request, or quoteId without them) is
 * hoisted instead: a `oneOf` of the object once per key of the `xor`, that key required with what it needs, the
 * other keys and what it forbids left out (additionalProperties false keeps them out), each variant its own object.
 * A branch of those rules has no `type` of its own, so generators type it `unknown` and the object's own properties
 * stand; a hoisted object is the union of its variants.
 */
function dependenciesAsSchema(object: Schema, dependencies: Dependency[]): Schema {
  const xor = dependencies.filter((dependency) => dependency.rel === 'xor');
  const rest = dependencies.filter((dependency) => dependency.rel !== 'xor');
  if (xor.length === 1 && rest.length > 0 && object.additionalProperties === false) return hoisted(object, xor[0]!.peers, rest);
  const out: Schema = { ...object };
  const once = (key: string, value: unknown) => {
    if (out[key] !== undefined) throw new Error(`Joi dependencies of one object both write ${key}: not translated`);
    out[key] = value;
  };
  const dependentSchemas: Record<string, Schema> = {};
  const onPresence = (key: string, schema: Schema) => {
    if (dependentSchemas[key]) throw new Error(`two Joi dependencies of ${key}: not translated`);
    dependentSchemas[key] = schema;
  };
  for (const { rel, key, peers } of dependencies) {
    if (rel === 'or') once('anyOf', present(peers));
    else if (rel === 'xor') once('oneOf', present(peers));
    else if (rel === 'oxor') once('oneOf', [...present(peers), { not: { anyOf: present(peers) } }]);
    else if (rel === 'with') out.dependentRequired = { ...(out.dependentRequired as object), [key!]: peers };
    else if (rel === 'without') onPresence(key!, absent(peers));
    else if (rel === 'nand')
      onPresence(
        peers[0]!,
        peers.slice(1, -1).reduceRight<Schema>((inner, peer) => ({ dependentSchemas: { [peer]: inner } }), absent(peers.slice(-1))),
      );
    else throw new Error(`no JSON Schema for Joi's ${rel}`);
  }
  if (Object.keys(dependentSchemas).length > 0) out.dependentSchemas = dependentSchemas;
  return out;
}

function hoisted(object: Schema, keys: string[], dependencies: Dependency[]): Schema {
  const { description, example, examples, 'x-component': component, ...shape } = object;
  const variants = keys.map((key) => {
    const left = new Set(keys.filter((other) => other !== key));
    for (const dependency of dependencies)
      if (dependency.rel === 'without' && dependency.key === key) for (const peer of dependency.peers) left.add(peer);
    const required = new Set([...((shape.required as string[] | undefined) ?? []), key]);
    const own: Dependency[] = [];
    for (const dependency of dependencies) {
      if (dependency.key === key && dependency.rel === 'with') for (const peer of dependency.peers) required.add(peer);
      else if (dependency.key === key && dependency.rel === 'without') continue;
      else if (dependency.key !== null && left.has(dependency.key))
        continue; // its key is not in this variant
      else own.push(dependency);
    }
    const properties = Object.fromEntries(Object.entries(shape.properties as Schema).filter(([name]) => !left.has(name)));
    return dependenciesAsSchema({ ...shape, properties, required: [...required] }, own);
  });
  const meta = { description, example, examples, 'x-component': component };
  return { ...Object.fromEntries(Object.entries(meta).filter(([, value]) => value !== undefined)), oneOf: variants };
}

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
  // A node a `.custom()` rule checks (a `Joi.any()` of anything) states its shape with `.meta({ 'x-schema': … })`.
  if (source['x-schema']) {
    const { 'x-schema': shape, type: _anything, ...rest } = source;
    return tidy({ ...rest, ...(shape as Schema) });
  }
  // An object's Joi dependencies (recorded by RECORDED), written once the object is whole.
  const records = Array.isArray(source.allOf) ? (source.allOf as Schema[]).filter((item) => item['x-dependencies']) : [];
  if (source['x-dependencies'] || records.length > 0) {
    const { 'x-dependencies': own, allOf, ...object } = source;
    const others = (allOf as Schema[] | undefined)?.filter((item) => !records.includes(item)) ?? [];
    const dependencies = [
      ...((own as Dependency[] | undefined) ?? []),
      ...records.flatMap((item) => item['x-dependencies'] as Dependency[]),
    ];
    return dependenciesAsSchema(tidy(others.length > 0 ? { ...object, allOf: others } : object) as Schema, dependencies);
  }
  for (const [key, value] of Object.entries(source)) {
    if (key === 'type' && Array.isArray(value) && value.length === 6 && source.oneOf) continue;
    if (key === 'default') continue;
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
  const out = tidy(parseJoi(schema, 'open-api-3.1', {}, { logicalOpParser: RECORDED })) as Schema;
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
