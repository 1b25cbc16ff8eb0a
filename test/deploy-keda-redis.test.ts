import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KUBERNETES } from './kustomize';

// `npm run deploy:keda-redis -- <path>` as an operator types it: npm runs the script from the repository
// root, so the path is taken from where npm was run (INIT_CWD), and a wrong one is one line, never a stack.
const ROOT = path.resolve(__dirname, '..');

function npmRun(cwd: string, ...args: string[]) {
  const result = spawnSync('npm', ['--prefix', ROOT, 'run', '-s', 'deploy:keda-redis', '--', ...args], { cwd, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr.replace(/^npm warn .*\n/gm, '') };
}

describe('npm run deploy:keda-redis', () => {
  let work: string;
  beforeEach(() => {
    work = mkdtempSync(path.join(tmpdir(), 'leadgen-keda-'));
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  it('when run with `.` from the repository root, which holds no secrets.env, then one line says what to name, with no stack', () => {
    const run = npmRun(ROOT, '.');
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: '' });
    expect(run.stderr.trim().split('\n')).toEqual([
      `deploy:keda-redis: ${path.join(ROOT, 'secrets.env')} does not exist: name your overlay directory, the one holding its secrets.env (docs/operations.md: Kubernetes)`,
    ]);
  });

  it('when run with `.` from inside an overlay holding secrets.env, then the files are written there, from its REDIS_URL', () => {
    cpSync(path.join(KUBERNETES, 'overlays/example/secrets.env.example'), path.join(work, 'secrets.env'));
    const run = npmRun(work, '.');
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(readFileSync(path.join(work, 'keda-redis.env'), 'utf8')).toBe(
      readFileSync(path.join(KUBERNETES, 'overlays/example/keda-redis.env.example'), 'utf8'),
    );
    expect(readFileSync(path.join(work, 'keda-redis.properties'), 'utf8')).toBe('databaseIndex=0\nenableTLS=false\n');
  });

  it('when given an overlay without its secrets.env yet, or no path at all, then one line says what to do', () => {
    cpSync(path.join(KUBERNETES, 'overlays/example/kustomization.yaml'), path.join(work, 'kustomization.yaml'));
    const missing = npmRun(ROOT, work);
    expect({ code: missing.code, stderr: missing.stderr.trim() }).toEqual({
      code: 1,
      stderr: `deploy:keda-redis: ${path.join(work, 'secrets.env')} does not exist: write it first (from secrets.env.example), then run this again`,
    });
    const none = npmRun(ROOT);
    expect({ code: none.code, stderr: none.stderr.trim() }).toEqual({
      code: 64,
      stderr: 'usage: npm run deploy:keda-redis -- <overlay directory holding secrets.env, or that secrets.env>',
    });
  });
});
