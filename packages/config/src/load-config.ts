import Joi from 'joi';
import { resolve } from './variable';
import { DECLARATION, VARIABLES, type Config } from './variables';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

const SCHEMA = Joi.object(Object.fromEntries(VARIABLES.map((v) => [v.name, v.schema])));

/** Reads the configuration from an environment (process.env by default); throws ConfigError listing every problem. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  const given: Record<string, string> = {};
  for (const { name } of VARIABLES) {
    const value = environment[name];
    // An empty variable counts as unset, as in most twelve-factor tooling.
    if (value !== undefined && value !== '') given[name] = value;
  }
  const { value, error } = SCHEMA.validate(given, { abortEarly: false, convert: true });
  const problems = (error?.details ?? []).map((d) => `${d.context?.key ?? d.path.join('.')}: ${d.message.replace(/^"[^"]+" /, '')}`);
  for (const { name, options } of VARIABLES) {
    if (options.requires && given[name] !== undefined && given[options.requires] === undefined) problems.push(`${name} is set but ${options.requires} is not`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return resolve(DECLARATION, value as Record<string, unknown>);
}

/** For a process's entry point: the configuration, or one clear line on stderr and exit code 78 (EX_CONFIG). */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}
