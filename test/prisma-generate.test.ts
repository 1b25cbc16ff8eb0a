import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// `npm run db:generate` (scripts/prisma-generate.js, every install's postinstall) generates the Prisma client only
// when it is missing or stale. `npx leadgen-admin` in a clone links the project into npx's cache and runs its
// postinstall: once, in CI, that rewrote the client while the suite's other tests and processes were reading it
// (three failures in one run). Checked on a copy of what the stamp is made from, never on the repository's client.

const ROOT = path.resolve(__dirname, '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { schemaStamp, clientDir, upToDate } = require(path.join(ROOT, 'scripts/prisma-generate.js')) as {
  schemaStamp: (root: string) => string;
  clientDir: (root: string) => string;
  upToDate: (root: string) => boolean;
};

describe('npm run db:generate', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'leadgen-generate-'));
    mkdirSync(path.join(root, 'prisma'));
    cpSync(path.join(ROOT, 'prisma/schema.prisma'), path.join(root, 'prisma/schema.prisma'));
    cpSync(path.join(ROOT, 'prisma.config.ts'), path.join(root, 'prisma.config.ts'));
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A client as the script leaves it: its files and the stamp of what it was generated from. */
  const generated = (stamp: string) => {
    mkdirSync(clientDir(root), { recursive: true });
    writeFileSync(path.join(clientDir(root), 'client.ts'), '// generated\n');
    writeFileSync(path.join(clientDir(root), 'schema-stamp.json'), JSON.stringify({ stamp }));
  };

  it('when the client was generated from this schema, config and Prisma, then it is up to date and not generated again', () => {
    expect(clientDir(root)).toBe(path.join(root, 'packages/db/src/generated/prisma'));
    expect(upToDate(root)).toBe(false);
    generated(schemaStamp(root));
    expect(upToDate(root)).toBe(true);
  });

  it('when the schema or the config changed since, or the client or its stamp is missing, then it is generated', () => {
    generated(schemaStamp(root));
    appendFileSync(path.join(root, 'prisma/schema.prisma'), '\n// a change\n');
    expect(upToDate(root)).toBe(false);
    generated(schemaStamp(root));
    appendFileSync(path.join(root, 'prisma.config.ts'), '\n// a change\n');
    expect(upToDate(root)).toBe(false);
    generated(schemaStamp(root));
    rmSync(path.join(clientDir(root), 'client.ts'));
    expect(upToDate(root)).toBe(false);
    generated(schemaStamp(root));
    rmSync(path.join(clientDir(root), 'schema-stamp.json'));
    expect(upToDate(root)).toBe(false);
    generated('a stamp of another schema');
    expect(upToDate(root)).toBe(false);
  });
});
