import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';

// Each workspace declares exactly the packages it imports: an import that only resolves because npm
// hoisted another workspace's dependency would be missing from a production install of that workspace.
const ROOT = path.resolve(__dirname, '..');

interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  if (!statSync(dir).isDirectory()) return [dir];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.name === 'node_modules'
      ? []
      : entry.isDirectory()
        ? files(path.join(dir, entry.name))
        : /\.(ts|js|mjs)$/.test(entry.name)
          ? [path.join(dir, entry.name)]
          : [],
  );
}

function packagesImportedBy(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map((i) => i.fileName)
    .filter((name) => !name.startsWith('.') && !name.startsWith('node:') && !builtinModules.includes(name.split('/')[0]!))
    .map((name) => (name.startsWith('@') ? name.split('/').slice(0, 2).join('/') : name.split('/')[0]!));
}

const isTestFile = (file: string) => /\.test\.ts$|[/\\](test|test-support)[/\\]/.test(file);

const workspaces = ['apps', 'packages'].flatMap((group) => readdirSync(path.join(ROOT, group)).map((name) => `${group}/${name}`));

describe('workspace dependencies', () => {
  it.each(workspaces)('when %s is read, then its package.json declares exactly what its code imports', (workspace) => {
    const dir = path.join(ROOT, workspace);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest;
    const all = [...files(path.join(dir, 'src')), ...files(path.join(dir, 'test'))];
    const runtime = new Set(all.filter((f) => !isTestFile(f)).flatMap(packagesImportedBy));
    const tests = new Set(all.filter(isTestFile).flatMap(packagesImportedBy));
    const dependencies = Object.keys(manifest.dependencies ?? {});
    const devDependencies = Object.keys(manifest.devDependencies ?? {});

    expect({
      undeclared: [...runtime].filter((name) => !dependencies.includes(name)).sort(),
      undeclaredInTests: [...tests].filter((name) => !dependencies.includes(name) && !devDependencies.includes(name)).sort(),
      unused: dependencies.filter((name) => !runtime.has(name)).sort(),
      unusedInTests: devDependencies.filter((name) => !tests.has(name)).sort(),
    }).toEqual({ undeclared: [], undeclaredInTests: [], unused: [], unusedInTests: [] });
  });

  // Test helpers never reach `npm run build`: only the bench, and tests (devDependencies), may depend on them.
  it.each(workspaces.filter((w) => !['apps/bench', 'packages/testing'].includes(w)))(
    'when %s is read, then its production dependencies leave out @leadgen/testing and @leadgen/bench',
    (workspace) => {
      const manifest = JSON.parse(readFileSync(path.join(ROOT, workspace, 'package.json'), 'utf8')) as Manifest;
      expect(Object.keys(manifest.dependencies ?? {}).filter((name) => ['@leadgen/testing', '@leadgen/bench'].includes(name))).toEqual([]);
    },
  );

  it('when the root scripts and tests are read, then the root package.json declares what they import', () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Manifest;
    const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {})]);
    const entries = ['scripts', 'test', 'docker', 'jest.config.ts', 'prisma.config.ts', 'eslint.config.mjs'].map((p) => path.join(ROOT, p));
    const imported = new Set(entries.flatMap(files).flatMap(packagesImportedBy));
    expect([...imported].filter((name) => !declared.has(name)).sort()).toEqual([]);
  });
});
