import Joi from 'joi';

/** What docs/configuration.md says of a variable beyond its description, and rules that span two variables. */
export interface VariableOptions {
  /** docs/configuration.md's default where the schema's is computed or differs per process (Markdown) */
  shownDefault?: string;
  /** set explicitly only together with this other variable: a half-configured upstream is a mistake */
  requires?: string;
  /** never set together with this other variable: the two ask for different things */
  conflicts?: string;
  /**
   * a credential: Kubernetes passes it from the Secret, and only to the processes in `readBy`
   * (`required`: a pod whose Secret lacks it does not start; `optional`: it may be absent)
   */
  secret?: 'required' | 'optional';
  /** the processes that read it (unset: every process); a secret names them, so each pod gets only its own */
  readBy?: readonly Reader[];
  /** with NODE_ENV=production, a process that reads it refuses to start without it */
  requiredInProduction?: boolean;
}

/**
 * A process that reads a variable: the API, the migrations (`npm run db:migrate`, the Kubernetes Job),
 * the admin CLI, every worker, or a worker serving one queue (`worker:shopify`: WORKER_QUEUES lists it).
 */
export type Reader = 'api' | 'migrate' | 'admin' | 'worker' | `worker:${string}`;

/**
 * One environment variable, declared once: its rule (a Joi schema, default included), docs/configuration.md's
 * words for it, and the value it gives the grouped configuration (`T`, from which `Config` is typed).
 */
export class Variable<T> {
  constructor(
    readonly name: string,
    readonly schema: Joi.Schema,
    readonly description: string,
    readonly options: VariableOptions,
    readonly read: (validated: unknown) => T,
  ) {}
}

/** A variable with a default: always a value. */
export function variable<T>(name: string, schema: Joi.Schema<T>, description: string, options: VariableOptions = {}): Variable<T> {
  return new Variable(name, schema, description, options, (validated) => validated as T);
}

/** A variable without a default: null while unset. */
export function optional<T>(name: string, schema: Joi.Schema<T>, description: string, options: VariableOptions = {}): Variable<T | null> {
  return new Variable(name, schema.optional(), description, options, (validated) => (validated === undefined ? null : (validated as T)));
}

/** `1` or `0` (`true`, `false` too), off by default. */
export function flag(name: string, description: string): Variable<boolean> {
  return variable(name, Joi.boolean().truthy('1').falsy('0').default(false), description);
}

/**
 * A second reading of a variable declared elsewhere in the declaration (not a variable of its own, so
 * not a second row of docs/configuration.md's table): e.g. whether WORKER_QUEUES lists `webhooks`.
 */
export class Reading<T> {
  constructor(
    readonly name: string,
    readonly read: (validated: unknown) => T,
  ) {}
}

export function readingOf<T>(name: string, read: (validated: unknown) => T): Reading<T> {
  return new Reading(name, read);
}

/** The grouped configuration's shape: variables, readings of them, groups of them, and constants that are no variable. */
export interface Group {
  readonly [key: string]: Variable<unknown> | Reading<unknown> | Group | number;
}

/** The value a declaration gives: each variable replaced by what it reads, groups kept. */
export type Resolved<Declared> =
  Declared extends Variable<infer T>
    ? T
    : Declared extends Reading<infer R>
      ? R
      : Declared extends Group
        ? { -readonly [K in keyof Declared]: Resolved<Declared[K]> }
        : Declared;

/** Every variable of a declaration, in the order it declares them (docs/configuration.md's order). */
export function variablesOf(group: Group): Array<Variable<unknown>> {
  return Object.values(group).flatMap((entry) =>
    entry instanceof Variable ? [entry] : entry instanceof Reading || typeof entry !== 'object' ? [] : variablesOf(entry),
  );
}

/** The grouped configuration from validated values, by variable name. */
export function resolve<Declared extends Group>(group: Declared, values: Readonly<Record<string, unknown>>): Resolved<Declared> {
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(group)) {
    out[key] =
      entry instanceof Variable || entry instanceof Reading
        ? entry.read(values[entry.name])
        : typeof entry === 'object'
          ? resolve(entry, values)
          : entry;
  }
  return out as Resolved<Declared>;
}
