#!/usr/bin/env node
// Runs `prisma generate` on any machine. Prisma 7's client needs no native engine, but the CLI
// still checks for its native schema engine and tries to download it when missing; where the
// binaries host is unreachable that fails, although `generate` never runs the engine.
// So when no engine is installed, point the CLI at a placeholder (see docs/decisions/002).
//
// It generates only when the client is missing or was generated from another schema, config or Prisma version
// (a stamp beside the client says which): `postinstall` runs it on every install, and an install that is not one
// (`npx leadgen-admin` in a clone links the project into npx's cache and runs its postinstall) must not rewrite the
// client under processes and tests reading it. `--force`: generate whatever the stamp says.
const { spawnSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const STAMP = 'schema-stamp.json';

/** What the client is generated from: the schema, the CLI's config and the versions of Prisma's CLI and client. */
function schemaStamp(root) {
  const hash = createHash('sha256');
  for (const file of ['prisma/schema.prisma', 'prisma.config.ts']) hash.update(`${file}\0${fs.readFileSync(path.join(root, file))}\0`);
  for (const pkg of ['prisma', '@prisma/client']) {
    const manifest = require.resolve(`${pkg}/package.json`, { paths: [root] });
    hash.update(`${pkg}\0${JSON.parse(fs.readFileSync(manifest, 'utf8')).version}\0`);
  }
  return hash.digest('hex');
}

/** The client's directory: the schema's `output`, relative to the schema. */
function clientDir(root) {
  const schema = fs.readFileSync(path.join(root, 'prisma/schema.prisma'), 'utf8');
  const output = /^\s*output\s*=\s*"([^"]+)"/m.exec(schema);
  if (!output) throw new Error('prisma/schema.prisma: the client generator names no output');
  return path.resolve(root, 'prisma', output[1]);
}

/** The client is there and was generated from what is here now. */
function upToDate(root) {
  const dir = clientDir(root);
  try {
    const stamp = JSON.parse(fs.readFileSync(path.join(dir, STAMP), 'utf8'));
    return stamp.stamp === schemaStamp(root) && fs.existsSync(path.join(dir, 'client.ts'));
  } catch {
    return false;
  }
}

function generate(root) {
  const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1' };
  if (!env.PRISMA_SCHEMA_ENGINE_BINARY) {
    const placeholder = path.join(os.tmpdir(), 'leadgen-no-schema-engine');
    fs.writeFileSync(placeholder, '#!/bin/sh\necho "schema engine not installed" >&2\nexit 1\n', { mode: 0o755 });
    env.PRISMA_SCHEMA_ENGINE_BINARY = placeholder;
  }
  const stamp = schemaStamp(root);
  const cli = require.resolve('prisma/build/index.js', { paths: [root] });
  const result = spawnSync(process.execPath, [cli, 'generate'], { cwd: root, env, stdio: 'inherit' });
  if (result.status !== 0) return result.status ?? 1;
  fs.writeFileSync(path.join(clientDir(root), STAMP), `${JSON.stringify({ stamp })}\n`);
  return 0;
}

if (require.main === module) {
  if (!process.argv.includes('--force') && upToDate(ROOT)) {
    console.log(
      `Prisma Client up to date in ${path.relative(ROOT, clientDir(ROOT))} (npm run db:generate -- --force to generate it anyway)`,
    );
    process.exit(0);
  }
  process.exit(generate(ROOT));
}

module.exports = { schemaStamp, clientDir, upToDate };
