import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

// The client's types are generated from the served OpenAPI document; a document changed without
// regenerating them (or a hand edit of the generated file) fails here. The generator runs as its own
// process: openapi-typescript's dependencies are ES modules, which jest's module system cannot load.
describe('the client’s generated types', () => {
  it('when generated again from the served document, then they are the checked-in file', () => {
    const generated = execFileSync(process.execPath, ['--import', 'tsx', 'scripts/client-types.ts', '--print'], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
    const checkedIn = readFileSync(path.join(ROOT, 'packages/client/src/openapi-types.ts'), 'utf8');
    expect(generated).toContain('export interface components');
    if (generated !== checkedIn)
      throw new Error('packages/client/src/openapi-types.ts is not what the OpenAPI document gives: run `npm run client:types`');
  });
});
