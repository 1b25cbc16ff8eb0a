import Joi from 'joi';
import { publishedSecretProblems } from './published-secrets';
import { resolve } from './variable';
import { unknownVariableWarnings } from './variable-typos';
import { DECLARATION, readsVariable, UNSAFE_IN_PRODUCTION, VARIABLES, type Config, type DeployedProcess } from './variables';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

const SCHEMA = Joi.object(Object.fromEntries(VARIABLES.map((v) => [v.name, v.schema])));

/**
 * Reads the configuration from an environment (process.env by default); throws ConfigError listing every
 * problem. `kind`: the kind of process reading it, so that a variable only other processes read (a
 * variable's `readBy`) is not required of it; unset, every requirement applies.
 */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env, kind?: DeployedProcess['kind']): Config {
  const given: Record<string, string> = {};
  for (const { name } of VARIABLES) {
    const value = environment[name];
    // An empty variable counts as unset, as in most twelve-factor tooling.
    if (value !== undefined && value !== '') given[name] = value;
  }
  const { value, error } = SCHEMA.validate(given, { abortEarly: false, convert: true });
  const problems = (error?.details ?? []).map((d) => `${d.context?.key ?? d.path.join('.')}: ${d.message.replace(/^"[^"]+" /, '')}`);
  for (const { name, options } of VARIABLES) {
    if (options.requires && given[name] !== undefined && given[options.requires] === undefined)
      problems.push(`${name} is set but ${options.requires} is not`);
    if (options.conflicts && given[name] !== undefined && given[options.conflicts] !== undefined)
      problems.push(`${name} and ${options.conflicts} are both set`);
  }
  problems.push(...redisTlsProblems(given));
  if ((value as { NODE_ENV?: string } | undefined)?.NODE_ENV === 'production') {
    const reader = readerOf(kind, (value as { WORKER_QUEUES?: unknown }).WORKER_QUEUES);
    for (const variable of VARIABLES) {
      if (variable.options.requiredInProduction && given[variable.name] === undefined && (!reader || readsVariable(reader, variable)))
        problems.push(`${variable.name}: is required in production`);
    }
    problems.push(...publishedSecretProblems(given));
  }
  if (!error) problems.push(...unsafeInProductionProblems(value as Record<string, unknown>));
  if (problems.length > 0) throw new ConfigError(problems);
  return resolve(DECLARATION, value as Record<string, unknown>);
}

// A worker is the reader of each queue it serves (WORKER_QUEUES, validated); no kind: every reader.
function readerOf(kind: DeployedProcess['kind'] | undefined, queues: unknown): DeployedProcess | null {
  if (!kind) return null;
  return kind === 'worker' ? { kind, queues: Array.isArray(queues) ? (queues as string[]) : [] } : { kind };
}

/** Each unsafe switch that is on in production without being named in PRODUCTION_UNSAFE_ACKNOWLEDGED. */
function unsafeInProductionProblems(values: Record<string, unknown>): string[] {
  if (values.NODE_ENV !== 'production') return [];
  const acknowledged = (values.PRODUCTION_UNSAFE_ACKNOWLEDGED as string[] | undefined) ?? [];
  return UNSAFE_IN_PRODUCTION.filter((name) => values[name] === true && !acknowledged.includes(name)).map(
    (name) => `${name} is on with NODE_ENV=production: unset it, or set PRODUCTION_UNSAFE_ACKNOWLEDGED=${name} to start anyway`,
  );
}

/** The unsafe switches a production configuration runs with, acknowledged: said at every start. */
export function acknowledgedUnsafeSwitches(environment: NodeJS.ProcessEnv = process.env): string[] {
  if (environment.NODE_ENV !== 'production') return [];
  const acknowledged = (environment.PRODUCTION_UNSAFE_ACKNOWLEDGED ?? '').split(',').map((name) => name.trim());
  return UNSAFE_IN_PRODUCTION.filter((name) => acknowledged.includes(name) && /^(1|true)$/i.test(environment[name] ?? ''));
}

// A certificate option with TLS off would be silently ignored: the connection would go out in clear.
function redisTlsProblems(given: Record<string, string>): string[] {
  const tlsOn =
    given.REDIS_TLS === '1' ||
    given.REDIS_TLS === 'true' ||
    (!given.REDIS_CLUSTER_NODES && !given.REDIS_SENTINELS && /^rediss:/i.test(given.REDIS_URL ?? ''));
  const options = ['REDIS_TLS_CA', 'REDIS_TLS_CERT', 'REDIS_TLS_KEY', 'REDIS_TLS_SERVERNAME'].filter((name) => given[name] !== undefined);
  return !tlsOn && options.length > 0 ? [`${options.join(', ')} set but TLS is off (REDIS_TLS=1, or a rediss:// REDIS_URL)`] : [];
}

/**
 * For a process's entry point: the configuration, or one clear line on stderr and exit code 78
 * (EX_CONFIG). Variables that look like ours but are not get a warning line each first.
 */
export function loadConfigOrExit(kind?: DeployedProcess['kind']): Config {
  for (const warning of unknownVariableWarnings()) process.stderr.write(`${warning}\n`);
  try {
    const config = loadConfig(process.env, kind);
    for (const name of acknowledgedUnsafeSwitches()) process.stderr.write(`warning: ${name} is on in production (acknowledged)\n`);
    return config;
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}
