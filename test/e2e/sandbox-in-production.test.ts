import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { ROOT, freePort } from '@leadgen/testing';

// Production guard rail: with NODE_ENV=production the API and the worker refuse to start while the sandbox
// would serve a source (a missing upstream key), unless SANDBOX_IN_PRODUCTION=1 says it is on purpose.

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/leadgen_test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PRODUCTION = {
  NODE_ENV: 'production',
  PUBLIC_BASE_URL: 'https://leads.example.com',
  // base64 of 32 bytes: production requires a key to seal webhook secrets.
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
};

function start(entry: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, entry)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', QUEUE_PREFIX: `t-${randomUUID().slice(0, 8)}`, DATABASE_URL, REDIS_URL, OPS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.resume();
  return {
    code: new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code))),
    stderr: () => stderr,
    kill: () => child.kill('SIGTERM'),
  };
}

describe('the sandbox in production', () => {
  it('when the API starts in production with no upstream key, then it exits 78 with one line naming every sandboxed source, its key and SANDBOX_IN_PRODUCTION', async () => {
    const api = start('apps/api/src/main.ts', { ...PRODUCTION, PORT: String(await freePort()) });
    expect(await api.code).toBe(78);
    const lines = api.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/NODE_ENV=production but the sandbox would serve google_maps, linkedin, shopify/);
    expect(lines[0]).toMatch(/GOOGLE_PLACES_API_KEY, PDL_API_KEY, STORELEADS_API_KEY/);
    expect(lines[0]).toMatch(/SANDBOX_IN_PRODUCTION=1/);
  }, 60_000);

  it('when a worker serves only sources whose keys are set, then the guard lets it by; one sandboxed source it serves is refused', async () => {
    const refused = start('apps/worker/src/main.ts', {
      ...PRODUCTION,
      WORKER_QUEUES: 'google_maps,shopify',
      GOOGLE_PLACES_API_KEY: 'test-key',
      GOOGLE_PLACES_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(await refused.code).toBe(78);
    expect(refused.stderr()).toMatch(/the sandbox would serve shopify \(STORELEADS_API_KEY unset\)/);
    expect(refused.stderr()).not.toMatch(/google_maps/);
  }, 60_000);

  it('when SANDBOX_IN_PRODUCTION=1 is set, then the API starts and serves', async () => {
    const port = await freePort();
    const api = start('apps/api/src/main.ts', { ...PRODUCTION, PORT: String(port), SANDBOX_IN_PRODUCTION: '1' });
    try {
      const deadline = Date.now() + 60_000;
      let status = 0;
      while (Date.now() < deadline && status !== 200) {
        status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (res) => res.status,
          () => 0,
        );
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(status).toBe(200);
      expect(api.stderr()).not.toMatch(/sandbox would serve/);
    } finally {
      api.kill();
      await api.code;
    }
  }, 90_000);
});
