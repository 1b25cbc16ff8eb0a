#!/usr/bin/env node
// Runs `prisma generate` on any machine. Prisma 7's client needs no native engine, but the CLI
// still checks for its native schema engine and tries to download it when missing; where the
// binaries host is unreachable that fails, although `generate` never runs the engine.
// So when no engine is installed, point the CLI at a placeholder (see docs/decisions/002).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1' };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) {
  const placeholder = path.join(os.tmpdir(), 'leadgen-no-schema-engine');
  fs.writeFileSync(placeholder, '#!/bin/sh\necho "schema engine not installed" >&2\nexit 1\n', { mode: 0o755 });
  env.PRISMA_SCHEMA_ENGINE_BINARY = placeholder;
}
const cli = require.resolve('prisma/build/index.js');
const result = spawnSync(process.execPath, [cli, 'generate'], {
  cwd: path.join(__dirname, '..'),
  env,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
