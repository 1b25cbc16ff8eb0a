// Renders /docs in headless Chromium from this process alone and saves a screenshot, to look at.
// The API runs in-process (it needs PostgreSQL and Redis for start-up only; the page needs nothing else):
//   npx tsx scripts/docs-screenshot.ts [out.png]     (CHROMIUM_PATH overrides /usr/bin/chromium)
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { loadConfig } from '@leadgen/config';
import { setLogLevel } from '@leadgen/logger';
import { startApi } from '../apps/api/src/start-api';
import { CHROMIUM, HEADLESS_FLAGS } from '../test/browser';

async function main(): Promise<void> {
  const out = process.argv[2] ?? 'docs-screenshot.png';
  const config = loadConfig({ ...process.env, PORT: '0', LOG_LEVEL: 'warn' });
  setLogLevel(config.log.level);
  const api = await startApi(config);
  try {
    const { port } = api.server.address() as { port: number };
    await promisify(execFile)(CHROMIUM, [
      ...HEADLESS_FLAGS,
      '--window-size=1280,1600',
      '--virtual-time-budget=8000',
      `--screenshot=${out}`,
      `http://127.0.0.1:${port}/docs/`,
    ]);
    console.log(`wrote ${out}`);
  } finally {
    await api.close();
  }
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
