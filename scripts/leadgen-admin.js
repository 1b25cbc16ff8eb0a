#!/usr/bin/env node
// `npx leadgen-admin <command> ...` (package.json `bin`): the operator CLI with nothing on stdout but
// its answer, so `npx leadgen-admin account:create --name Acme | jq .` gets the key that is printed
// once. `npm run admin` prints npm's banner on stdout first (`npm run -s admin` does not).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const BUILD = path.join(ROOT, 'scripts/build.js');

// Rebuilt when a source changed, as `npm run admin` does; anything the build says goes to stderr.
if (fs.existsSync(BUILD)) {
  const build = spawnSync(process.execPath, [BUILD, '--if-stale'], { stdio: ['ignore', 2, 2] });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
process.setSourceMapsEnabled(true);
// In this process, so the terminal (account:delete's question) and the exit code are the CLI's own.
require(path.join(ROOT, 'dist/admin.js'));
