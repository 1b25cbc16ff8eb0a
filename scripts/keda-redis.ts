// `npm run deploy:keda-redis -- <overlay directory>`: KEDA's view of the queue's Redis, derived from
// the REDIS_URL of the overlay's secrets.env, so KEDA counts the lists in the database, and over the
// TLS, that the pods use. Writes beside it:
// - keda-redis.env (the Secret leadgen-keda-redis: `address` host:port, `username`, `password`);
// - keda-redis.properties (the ConfigMap leadgen-keda-options: `databaseIndex`, `enableTLS`), which
//   components/keda-queue-names copies into every trigger.
// Redis Cluster and Sentinel overlays write keda-redis.env by hand (their nodes are no URL).
// npm runs a script from the repository root: a relative path is taken from where npm was run (INIT_CWD).
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** KEY=value lines of an env file (comments and blank lines skipped). */
export function readEnvFile(text: string): Record<string, string> {
  const entries = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#') && line.includes('='))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const);
  return Object.fromEntries(entries);
}

export interface KedaRedisFiles {
  /** the Secret's env file */
  secret: string;
  /** the ConfigMap's env file */
  options: string;
}

/** KEDA's settings for the one Redis node a `redis://` or `rediss://` URL names (as the pods read it). */
export function kedaRedisFiles(redisUrl: string): KedaRedisFiles {
  let url: URL;
  try {
    url = new URL(redisUrl);
  } catch {
    throw new Error('REDIS_URL is not a URL (expected redis://[user:password@]host:port/N)');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new Error('REDIS_URL must be a redis:// or rediss:// URL');
  const database = url.pathname.replace(/^\//, '') || '0';
  if (!/^\d+$/.test(database)) throw new Error('REDIS_URL names no database index (expected /N)');
  const secret = [
    `address=${url.hostname}:${url.port || '6379'}`,
    `username=${decodeURIComponent(url.username)}`,
    `password=${decodeURIComponent(url.password)}`,
  ];
  const options = [`databaseIndex=${Number(database)}`, `enableTLS=${url.protocol === 'rediss:'}`];
  return { secret: `${secret.join('\n')}\n`, options: `${options.join('\n')}\n` };
}

const USAGE = 'usage: npm run deploy:keda-redis -- <overlay directory holding secrets.env, or that secrets.env>';

/**
 * Writes keda-redis.env and keda-redis.properties beside the overlay's secrets.env. `target` is the overlay
 * directory or its secrets.env, relative to `cwd` (where the operator ran npm). Throws with one line to print.
 */
export function writeKedaRedisFiles(target: string, cwd: string): string {
  const given = path.resolve(cwd, target);
  const isDirectory = existsSync(given) && statSync(given).isDirectory();
  const secretsFile = isDirectory ? path.join(given, 'secrets.env') : given;
  const dir = path.dirname(secretsFile);
  if (!existsSync(secretsFile)) {
    const example = path.join(dir, 'secrets.env.example');
    throw new Error(
      `${secretsFile} does not exist: ` +
        (existsSync(example) || existsSync(path.join(dir, 'kustomization.yaml'))
          ? 'write it first (from secrets.env.example), then run this again'
          : 'name your overlay directory, the one holding its secrets.env (docs/operations.md: Kubernetes)'),
    );
  }
  const environment = readEnvFile(readFileSync(secretsFile, 'utf8'));
  if (!environment.REDIS_URL) throw new Error(`${secretsFile} sets no REDIS_URL`);
  const files = kedaRedisFiles(environment.REDIS_URL);
  writeFileSync(path.join(dir, 'keda-redis.env'), files.secret, { mode: 0o600 });
  writeFileSync(path.join(dir, 'keda-redis.properties'), files.options);
  return `${dir}: keda-redis.env and keda-redis.properties written from REDIS_URL`;
}

if (require.main === module) {
  const target = process.argv[2];
  if (!target || process.argv.length > 3) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(64);
  }
  try {
    console.log(writeKedaRedisFiles(target, process.env.INIT_CWD ?? process.cwd()));
  } catch (error) {
    process.stderr.write(`deploy:keda-redis: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
