import type { Request } from 'express';
import Joi from 'joi';
import { errors, type FieldProblem } from '@leadgen/domain';
import { jsonPointer, unsafeContentProblems } from './body-guard';

// The route table's one validation of a request (decision 029): each endpoint declares the Joi schemas
// of its path parameters, query and body, and the handler gets the validated values. Every problem is
// reported at once as 400 validation_failed with JSON pointers; a malformed id answers what its schema
// says (idParam: the 404 of an unknown one, without asking the database).

export interface RequestSchemas {
  /** Path parameters (by their OpenAPI names); see idParam. */
  params?: Joi.ObjectSchema;
  /** The query; a parameter whose schema is an array also takes a comma list (`status=a,b`), as the document declares it. */
  query?: Joi.ObjectSchema;
  /**
   * The JSON body. Also checked at every depth for what no schema would catch (body-guard.ts). A nested
   * check that reports several problems (a batch's request, a schedule) fails with `context.problems`,
   * each pointer relative to where it stands (see nestedProblems).
   */
  body?: Joi.Schema;
  /** The most body problems listed (a suppression upload can hold 100,000 bad entries); all by default. */
  maxProblems?: number;
}

/** What a handler receives: the request's validated parts, as their schemas made them. */
export interface Valid<P = Record<string, string>, Q = Record<string, unknown>, B = unknown> {
  params: P;
  query: Q;
  body: B;
}

/** What a request schema may read of the deployment, as Joi's `context` (`$allowHttp` in a schema, helpers.prefs.context in a custom rule). */
export type ValidationContext = Record<string, unknown>;

export interface RequestChecker {
  schemas: RequestSchemas;
  /** The query parameters that take a comma list: those whose schema is an array. */
  commaLists: string[];
}

export function requestChecker(schemas: RequestSchemas): RequestChecker {
  const keys = (schemas.query?.describe() as { keys?: Record<string, { type: string }> } | undefined)?.keys ?? {};
  return { schemas, commaLists: Object.entries(keys).flatMap(([name, key]) => (key.type === 'array' ? [name] : [])) };
}

const OPTIONS = { abortEarly: false, errors: { wrap: { label: false } } } as const;

/** Validates the request's parts in the order a client would fix them: path, query, body. */
export function checkRequest(checker: RequestChecker, req: Request, context: ValidationContext): Valid {
  const { schemas } = checker;
  return {
    params: schemas.params ? checkParams(schemas.params, req.params, context) : (req.params as Record<string, string>),
    query: schemas.query ? checkQuery(schemas.query, splitCommas(req.query, checker.commaLists), context) : {},
    body: schemas.body ? checkBody(schemas.body, req.body, context, schemas.maxProblems) : req.body,
  };
}

function checkParams(schema: Joi.ObjectSchema, params: unknown, context: ValidationContext): Record<string, string> {
  const { value, error } = schema.validate(params, { ...OPTIONS, abortEarly: true, context });
  // A parameter's own answer (idParam's 404) is thrown as it is; any other is a problem of the path.
  if (error && !error.isJoi) throw error;
  if (error) throw errors.validation(error.details.map((d) => ({ pointer: jsonPointer(d.path), detail: d.message })));
  return value as Record<string, string>;
}

/** Pointers name the parameter (`#/limit`), whatever part of its value was wrong. */
function checkQuery(schema: Joi.ObjectSchema, query: unknown, context: ValidationContext): Record<string, unknown> {
  const { value, error } = schema.validate(query ?? {}, { ...OPTIONS, context });
  if (error) throw errors.validation(error.details.map((d) => ({ pointer: jsonPointer(d.path.slice(0, 1)), detail: d.message })));
  return value as Record<string, unknown>;
}

function checkBody(schema: Joi.Schema, body: unknown, context: ValidationContext, maxProblems = Infinity): unknown {
  const unsafe = unsafeContentProblems(body);
  const { value, error } = schema.validate(body, { ...OPTIONS, context });
  if (!error && unsafe.length === 0) return value;
  // A field both report would say the same thing twice; the content problem is the precise one.
  const flagged = new Set(unsafe.map((p) => p.pointer));
  const problems = (error?.details ?? []).flatMap(nestedProblems).filter((p) => !flagged.has(p.pointer));
  throw errors.validation([...unsafe, ...problems.slice(0, maxProblems)]);
}

/** A Joi detail as problems: its own, or those of a nested check it carries (`context.problems`), moved under its path. */
function nestedProblems(detail: Joi.ValidationErrorItem): FieldProblem[] {
  const at = jsonPointer(detail.path);
  const nested = detail.context?.problems as FieldProblem[] | undefined;
  if (!nested) return [{ pointer: at, detail: detail.message }];
  return nested.map((p) => ({ pointer: at === '#' ? p.pointer : `${at}${p.pointer.slice(1)}`, detail: p.detail }));
}

/** `?status=a,b` as `?status=a&status=b`, before validation. */
function splitCommas(query: Record<string, unknown>, names: string[]): Record<string, unknown> {
  if (names.length === 0) return query;
  const out = { ...query };
  for (const name of names) {
    const value = out[name];
    if (typeof value === 'string') out[name] = value.split(',');
    else if (Array.isArray(value)) out[name] = value.flatMap((v: unknown) => (typeof v === 'string' ? v.split(',') : [v]));
  }
  return out;
}

/**
 * A path parameter naming something by its id: one that cannot be an id (`ID_PATTERNS`) answers `notFound`,
 * the same as an unknown one, without asking the database (which refuses a NUL in text outright).
 */
export const idParam = (pattern: RegExp, notFound: () => Error) =>
  Joi.string()
    .pattern(pattern)
    .required()
    .error(() => notFound());
