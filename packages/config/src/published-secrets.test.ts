import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from './index';
import { PUBLISHED_EXAMPLE_SECRETS } from './published-secrets';
import { VARIABLES } from './variables';

const ROOT = path.resolve(__dirname, '../../..');
const OWN_KEY = Buffer.alloc(32, 7).toString('base64');
const production = (env: Record<string, string>) => () =>
  loadConfig({ NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://leads.example.com', SECRETS_ENCRYPTION_KEY: OWN_KEY, ...env });

// Every KEY=value line of the repository's example env files (tracked *.env.example).
function exampleAssignments(): Array<{ file: string; name: string; value: string }> {
  const files = execFileSync('git', ['ls-files', '*.env.example'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
  return files.flatMap((file) =>
    readFileSync(path.join(ROOT, file), 'utf8')
      .split('\n')
      .map((line) => /^([A-Za-z_][A-Za-z0-9_]*)=(.+)$/.exec(line.trim()))
      .flatMap((m) => (m ? [{ file, name: m[1]!, value: m[2]! }] : [])),
  );
}

describe('production refuses published example secrets (issue 31, finding 7)', () => {
  it('when SECRETS_ENCRYPTION_KEY or OPERATOR_PASSWORD is the example value, then the start is refused naming the variable, not the value', () => {
    for (const [name, value] of [
      ['SECRETS_ENCRYPTION_KEY', 'Y2hhbmdlLW1lLWNoYW5nZS1tZS1jaGFuZ2UtbWUtMzI='],
      ['OPERATOR_PASSWORD', 'change-me-to-12-or-more-characters'],
    ] as const) {
      expect(production({ [name]: value })).toThrow(ConfigError);
      expect(production({ [name]: value })).toThrow(new RegExp(`${name}: is an example value published in this repository`));
      expect(production({ [name]: value })).not.toThrow(new RegExp(value.slice(0, 12)));
      // Outside production it is a developer's machine: the example works there.
      expect(() => loadConfig({ [name]: value })).not.toThrow();
    }
  });

  it('when the published key is one of a rotation list, or a URL carries the published password, then it is refused too', () => {
    expect(production({ SECRETS_ENCRYPTION_KEY: `${OWN_KEY},Y2hhbmdlLW1lLWNoYW5nZS1tZS1jaGFuZ2UtbWUtMzI=` })).toThrow(
      /SECRETS_ENCRYPTION_KEY/,
    );
    expect(production({ DATABASE_URL: 'postgresql://leadgen:change-me@db.internal:5432/leadgen' })).toThrow(
      /DATABASE_URL: is an example value/,
    );
    // A multi-host URL (decision 045), which WHATWG URL cannot read.
    expect(
      production({ DATABASE_URL: 'postgresql://leadgen:change-me@db-a:5432,db-b:5432/leadgen?target_session_attrs=read-write' }),
    ).toThrow(/DATABASE_URL: is an example value/);
    expect(production({ REDIS_URL: 'redis://:change-me@redis.internal:6379' })).toThrow(/REDIS_URL: is an example value/);
    expect(
      production({ DATABASE_URL: 'postgresql://leadgen:s3cret-of-ours@db.internal:5432/leadgen', OPERATOR_PASSWORD: 'a-password-of-ours' }),
    ).not.toThrow();
  });

  it("when an example file publishes a secret variable's value, then that value is on the refused list", () => {
    const secretNames = new Set(VARIABLES.filter((v) => v.options.secret !== undefined).map((v) => v.name));
    const published = exampleAssignments().filter(({ name }) => secretNames.has(name));
    expect(published.length).toBeGreaterThanOrEqual(4);
    for (const { file, name, value } of published) {
      expect({
        file,
        name,
        refused: (() => {
          try {
            production({ [name]: value })();
            return false;
          } catch {
            return true;
          }
        })(),
      }).toEqual({ file, name, refused: true });
    }
    // The keda-redis example's password is the same published word.
    expect(PUBLISHED_EXAMPLE_SECRETS.has('change-me')).toBe(true);
  });
});
