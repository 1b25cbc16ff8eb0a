// `npm run deploy:keda-redis -- <overlay directory>`: KEDA's view of the queue's Redis, derived from
// the REDIS_URL of the overlay's secrets.env, so KEDA counts the lists in the database, and over the
// TLS, that the pods use. Writes beside it:
// - keda-redis.env (the Secret leadgen-keda-redis: `address` host:port, `username`, `password`);
// - keda-redis.properties (the ConfigMap leadgen-keda-options: `databaseIndex`, `enableTLS`), which
//   components/keda-queue-names copies into every trigger.
// Redis Cluster and Sentinel overlays write keda-redis.env by hand (their nodes are no URL).
import { readFileSync, writeFileSync } from 'node:fs';
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
  const url = new URL(redisUrl);
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

if (require.main === module) {
  const dir = process.argv[2];
  if (!dir) {
    process.stderr.write('usage: npm run deploy:keda-redis -- <overlay directory holding secrets.env>\n');
    process.exit(64);
  }
  const environment = readEnvFile(readFileSync(path.join(dir, 'secrets.env'), 'utf8'));
  if (!environment.REDIS_URL) {
    process.stderr.write(`${path.join(dir, 'secrets.env')} sets no REDIS_URL\n`);
    process.exit(65);
  }
  const files = kedaRedisFiles(environment.REDIS_URL);
  writeFileSync(path.join(dir, 'keda-redis.env'), files.secret, { mode: 0o600 });
  writeFileSync(path.join(dir, 'keda-redis.properties'), files.options);
  console.log(`${dir}: keda-redis.env and keda-redis.properties written from REDIS_URL`);
}
