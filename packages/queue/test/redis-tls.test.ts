import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '@leadgen/config';
import { closeRedis, redisConnection, waitUntilConnected, type RedisClient } from '../src/redis-connections';

// REDIS_TLS_CA, REDIS_TLS_CERT/KEY and REDIS_TLS_SERVERNAME against a real redis-server that speaks
// only TLS and asks for a client certificate, all signed by a CA made here with openssl.
const NAME = 'redis.test';

function openssl(dir: string, ...args: string[]): void {
  const run = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`openssl ${args[0]}: ${run.stderr}`);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('TLS to Redis', () => {
  let dir: string;
  let port: number;
  let server: ChildProcess;
  const opened: RedisClient[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'leadgen-tls-'));
    openssl(
      dir,
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '1',
      '-subj',
      '/CN=leadgen test CA',
    );
    writeFileSync(path.join(dir, 'san.cnf'), `subjectAltName=DNS:${NAME}\n`);
    for (const who of ['server', 'client']) {
      openssl(
        dir,
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        `${who}.key`,
        '-out',
        `${who}.csr`,
        '-subj',
        `/CN=${who === 'server' ? NAME : 'leadgen'}`,
      );
      openssl(
        dir,
        'x509',
        '-req',
        '-in',
        `${who}.csr`,
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${who}.pem`,
        '-days',
        '1',
        '-extfile',
        'san.cnf',
      );
    }
    port = await freePort();
    server = spawn(
      'redis-server',
      [
        '--port',
        '0',
        '--tls-port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--tls-cert-file',
        'server.pem',
        '--tls-key-file',
        'server.key',
        '--tls-ca-cert-file',
        'ca.pem',
        '--tls-auth-clients',
        'yes',
        '--save',
        '',
        '--appendonly',
        'no',
      ],
      { cwd: dir, stdio: 'ignore' },
    );
    await new Promise((r) => setTimeout(r, 300));
  });

  afterAll(async () => {
    await Promise.all(opened.map(closeRedis));
    server?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  async function connect(env: Record<string, string>): Promise<RedisClient> {
    const connection = redisConnection(loadConfig({ REDIS_URL: `rediss://127.0.0.1:${port}`, ...env }).redis, 'producer', 'tls-test');
    opened.push(connection);
    await waitUntilConnected(connection, 3_000);
    return connection;
  }

  it('when the CA, a client certificate and the server name are given, then the connection is up and answers', async () => {
    const connection = await connect({
      REDIS_TLS_CA: path.join(dir, 'ca.pem'),
      REDIS_TLS_CERT: path.join(dir, 'client.pem'),
      REDIS_TLS_KEY: path.join(dir, 'client.key'),
      REDIS_TLS_SERVERNAME: NAME,
    });
    expect(await connection.ping()).toBe('PONG');
  });

  it('when the private CA is not given, then the server is not trusted and nothing is sent', async () => {
    const connection = await connect({
      REDIS_TLS_CERT: path.join(dir, 'client.pem'),
      REDIS_TLS_KEY: path.join(dir, 'client.key'),
      REDIS_TLS_SERVERNAME: NAME,
    });
    expect(connection.status).not.toBe('ready');
  });

  it('when no client certificate is given, then a Redis that asks for one refuses the connection', async () => {
    const connection = await connect({ REDIS_TLS_CA: path.join(dir, 'ca.pem'), REDIS_TLS_SERVERNAME: NAME });
    await expect(connection.ping()).rejects.toThrow();
  });
});
