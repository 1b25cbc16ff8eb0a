#!/usr/bin/env node
// `npm run build`: one JavaScript file per process in dist/, bundled by esbuild (docs/decisions/008).
// The workspaces' TypeScript (and the generated Prisma client) is bundled in; every npm package
// stays external, installed as a production dependency beside dist/. `--if-stale` builds only when
// dist/ is missing or a source it was built from changed since (what `npm start` and friends use).
const fs = require('node:fs');
const path = require('node:path');
const { isBuiltin } = require('node:module');

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'dist');
const META = path.join(OUT, 'build-meta.json');

/** dist/<name>.js for each process: the Dockerfile's entrypoint and package.json's scripts run these. */
const ENTRIES = {
  api: 'apps/api/src/main.ts',
  worker: 'apps/worker/src/main.ts',
  admin: 'apps/admin/src/main.ts',
  migrate: 'packages/db/src/migrate-cli.ts',
  // The API's suppression upload thread (apps/api/src/routes/suppressions/suppression-upload-parser.ts).
  'suppression-parser': 'apps/api/src/routes/suppressions/suppression-parser-thread.ts',
  start: 'scripts/start-all.ts',
};

// Node 20 stays the floor for development on machines that have it; production runs 22 or 24.
const TARGET = 'node20';

function fresh() {
  if (!fs.existsSync(META)) return false;
  const meta = JSON.parse(fs.readFileSync(META, 'utf8'));
  if (Object.keys(ENTRIES).some((name) => !fs.existsSync(path.join(OUT, `${name}.js`)))) return false;
  const inputs = [...meta.inputs, 'package.json', 'scripts/build.js'];
  return inputs.every((input) => {
    const file = path.join(ROOT, input);
    return fs.existsSync(file) && fs.statSync(file).mtimeMs <= meta.builtAt;
  });
}

function owningManifest(file) {
  for (let dir = path.dirname(file); dir.startsWith(ROOT); dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) return { dir, manifest: JSON.parse(fs.readFileSync(manifest, 'utf8')) };
  }
  throw new Error(`no package.json above ${file}`);
}

function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

// Workspaces are bundled; any other package is left to require() at run time, and must be a
// dependency of the workspace that imports it: a package that only resolves because npm hoisted
// it for someone else would be missing from the production install.
const externals = {
  name: 'leadgen-externals',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (isBuiltin(args.path)) return { path: args.path, external: true };
      const name = packageName(args.path);
      if (name.startsWith('@leadgen/')) return undefined;
      const owner = owningManifest(args.importer);
      if (!owner.manifest.dependencies?.[name]) {
        const where = path.relative(ROOT, owner.dir) || 'the root';
        return { errors: [{ text: `${name} is imported but not in the dependencies of ${where}/package.json` }] };
      }
      return { path: args.path, external: true };
    });
  },
};

// dist/*.js resolve their packages from the root node_modules only: a workspace with a nested
// node_modules (a second version of a package) would run with the root's version instead.
function assertNoNestedVersions() {
  for (const group of ['apps', 'packages']) {
    for (const name of fs.readdirSync(path.join(ROOT, group))) {
      const nested = path.join(ROOT, group, name, 'node_modules');
      const own = fs.existsSync(nested) ? fs.readdirSync(nested).filter((entry) => entry !== '.bin') : [];
      if (own.length > 0) {
        throw new Error(`${group}/${name} has its own node_modules (${own.join(', ')}): align its versions with the other workspaces`);
      }
    }
  }
}

async function main() {
  const ifStale = process.argv.includes('--if-stale');
  if (ifStale && fresh()) return;
  assertNoNestedVersions();
  const esbuild = require('esbuild');
  const builtAt = Date.now();
  fs.rmSync(OUT, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, entry]) => [name, entry])),
    outdir: OUT,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: TARGET,
    // Stack traces point at the TypeScript (node --enable-source-maps), without shipping its text.
    sourcemap: 'linked',
    sourcesContent: false,
    keepNames: true,
    metafile: true,
    logLevel: 'warning',
    plugins: [externals],
  });
  const inputs = Object.keys(result.metafile.inputs);
  fs.writeFileSync(META, `${JSON.stringify({ builtAt, target: TARGET, entries: ENTRIES, inputs }, null, 2)}\n`);
  const sizes = Object.keys(ENTRIES).map((name) => `${name}.js ${Math.round(fs.statSync(path.join(OUT, `${name}.js`)).size / 1024)} KiB`);
  // stderr: `npm run admin` prints its JSON answer on stdout.
  process.stderr.write(`built dist/ in ${Date.now() - builtAt} ms from ${inputs.length} files: ${sizes.join(', ')}\n`);
}

main().catch((error) => {
  process.stderr.write(`build failed: ${error.message}\n`);
  process.exit(1);
});
