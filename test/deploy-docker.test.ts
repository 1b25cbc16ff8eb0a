import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import { CONFIG_VARIABLES, loadConfig } from '@leadgen/config';

// The image and the compose file, checked without a Docker daemon. docker/try-runtime-stage.sh (run
// by .ci/run) proves the runtime stage itself; this checks what only the files can tell.
const ROOT = path.resolve(__dirname, '..');
const dockerfile = readFileSync(path.join(ROOT, 'docker/Dockerfile'), 'utf8');
const workspaces = ['apps', 'packages'].flatMap((group) => readdirSync(path.join(ROOT, group)).map((name) => `${group}/${name}`));

/** The Dockerfile's instructions by stage name, continuation lines joined. */
function stages(): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  let current = '';
  const lines = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('#'));
  for (const line of lines) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) current = from[2] ?? from[1]!;
    (result[current] ??= []).push(line.trim());
  }
  return result;
}

describe('docker/Dockerfile', () => {
  const { build, 'prod-deps': prodDeps, runtime } = stages();

  it('when read, then a build, a production-dependencies and a runtime stage, the runtime on Node 24 slim', () => {
    expect(build).toBeDefined();
    expect(prodDeps).toBeDefined();
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24-[a-z]+-slim$/m);
    expect(runtime![0]).toBe('FROM ${NODE_IMAGE} AS runtime');
  });

  it.each(['build', 'prod-deps'])('when the %s stage installs, then it has every workspace manifest first', (stage) => {
    const copies = stages()[stage]!.filter((l) => l.startsWith('COPY'));
    for (const workspace of workspaces) expect(copies).toContain(`COPY ${workspace}/package.json ./${workspace}/`);
  });

  it('when the runtime stage is read, then only the assembled stages reach it, run by node as PID 1 child of tini', () => {
    const copies = runtime!.filter((l) => l.startsWith('COPY'));
    expect(copies).toEqual(['COPY --from=prod-deps /out/ ./', 'COPY --from=build /out/ ./']);
    expect(runtime).toContain('USER node');
    expect(runtime).toContainEqual(expect.stringMatching(/^HEALTHCHECK .*CMD \["node", "\/app\/docker\/healthcheck.js"\]$/));
    expect(runtime).toContain('ENTRYPOINT ["/usr/bin/tini", "--", "/app/docker/entrypoint.sh"]');
    expect(runtime).toContain('CMD ["api"]');
    for (const label of ['title', 'description', 'version', 'revision', 'created', 'licenses', 'base.name']) {
      expect(dockerfile).toContain(`org.opencontainers.image.${label}=`);
    }
    // The build stage installs from the lockfile and refuses to change it (npm ci's promise).
    expect(build!.join('\n')).toMatch(/npm install .*cmp -s package-lock.json/);
  });
});

describe('docker/entrypoint.sh', () => {
  it('when given a command it does not know, then it runs it as given', () => {
    expect(execFileSync(path.join(ROOT, 'docker/entrypoint.sh'), ['echo', 'hello'], { encoding: 'utf8' })).toBe('hello\n');
  });
});

describe('docker/compose.yaml', () => {
  const file = path.join(ROOT, 'docker/compose.yaml');
  const compose = parse(readFileSync(file, 'utf8'), { merge: true }) as {
    services: Record<
      string,
      {
        command?: string[];
        entrypoint?: string[];
        environment?: Record<string, string>;
        healthcheck?: Record<string, unknown>;
        stop_grace_period?: string;
      }
    >;
  };

  it('when linted against the Compose specification (dclint), then no error and no warning', () => {
    const run = spawnSync(
      process.execPath,
      [
        path.join(ROOT, 'node_modules/dclint/bin/dclint.cjs'),
        '-c',
        'docker/dclint.json',
        '--max-warnings',
        '0',
        '--color',
        'false',
        'docker/compose.yaml',
      ],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    expect(run.stdout + run.stderr).not.toMatch(/error|warning/);
    expect(run.status).toBe(0);
  });

  it('when the services are read, then api and worker have health checks and commands the entrypoint knows', () => {
    const { api, worker, migrate, admin } = compose.services;
    expect(api!.command).toEqual(['api']);
    expect(worker!.command).toEqual(['worker']);
    expect(migrate!.command).toEqual(['migrate']);
    expect(admin!.entrypoint).toEqual(['/usr/bin/tini', '--', '/app/docker/entrypoint.sh', 'admin']);
    for (const service of [api!, worker!]) expect(service.healthcheck?.test).toEqual(['CMD', 'node', '/app/docker/healthcheck.js']);
  });

  it('when the app environment is read, then every variable is one the service reads, and the grace fits the stop period', () => {
    const environment = compose.services.api!.environment!;
    expect(Object.keys(environment).filter((name) => !CONFIG_VARIABLES.includes(name))).toEqual([]);
    expect(compose.services.worker!.environment).toEqual(environment);
    const grace = loadConfig({}).shutdownGraceMs;
    const stopSeconds = Number(/^(\d+)s$/.exec(compose.services.worker!.stop_grace_period ?? '')?.[1]);
    expect(stopSeconds * 1000).toBeGreaterThan(grace + 5_000);
  });
  it('when a variable is passed on from the shell, then it names itself and repeats no default of the declaration', () => {
    const environment = compose.services.api!.environment!;
    const problems: string[] = [];
    for (const [name, value] of Object.entries(environment)) {
      for (const [, used, fallback] of String(value).matchAll(/\$\{([A-Z0-9_]+)(?::-([^}]*))?\}/g)) {
        // Another service variable's value here would be a copy-paste slip (POSTGRES_PASSWORD is compose's own).
        if (used !== name && CONFIG_VARIABLES.includes(used!)) problems.push(`${name} reads \${${used}}`);
        // An empty value means the declaration's default: a copy of it here would go stale when it changes.
        if (used === name && fallback && isDeepStrictEqual(loadConfig({ [name]: fallback }), loadConfig({})))
          problems.push(`${name} repeats its default ${fallback}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
