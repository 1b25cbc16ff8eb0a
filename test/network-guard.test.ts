import { spawnSync } from 'node:child_process';
import dns from 'node:dns';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import faultsConfig from './faults/jest.config';
import { GUARDED, guardLookup } from './network-guard';
import baseConfig from '../jest.config';

// test/network-guard.js refuses every connection but loopback. The refused destinations below never
// leave the machine even if the guard is broken: 0.0.0.0 is this host on Linux, and names are only
// looked up once the guard is known to be installed.

let server: net.Server;
let port: number;
beforeAll(async () => {
  server = net.createServer((socket) => socket.end('hello\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
  // Nothing below may ask DNS or the network about a name unless the guard is in place.
  if (
    !(dns.lookup as unknown as Record<symbol, unknown>)[GUARDED] ||
    !(net.Socket.prototype.connect as unknown as Record<symbol, unknown>)[GUARDED]
  ) {
    throw new Error('the network guard is not installed in this test process');
  }
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** What a socket did: its first line, or the error it ended with. */
function outcome(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    socket.once('data', (chunk) => {
      resolve(`data: ${chunk.toString().trim()}`);
      socket.destroy();
    });
    socket.once('error', (error) => resolve(`error: ${error.message}`));
  });
}

describe('the network guard', () => {
  it('when both jest configurations are read, then each loads the guard before any test file', () => {
    for (const config of [baseConfig, faultsConfig]) expect(config.setupFiles?.[0]).toBe('<rootDir>/test/network-guard.js');
  });

  it('when a test connects to loopback (an address, localhost, ::1) or a unix socket, then it goes through', async () => {
    expect(await outcome(net.connect(port, '127.0.0.1'))).toBe('data: hello');
    expect(await outcome(net.connect({ port, host: 'localhost' }))).toBe('data: hello');
    const v6 = net.createServer((socket) => socket.end('six\n'));
    await new Promise<void>((resolve) => v6.listen(0, '::1', resolve));
    expect(await outcome(net.connect((v6.address() as net.AddressInfo).port, '::1'))).toBe('data: six');
    await new Promise((resolve) => v6.close(resolve));
    const dir = mkdtempSync(path.join(tmpdir(), 'guard-'));
    const unix = net.createServer((socket) => socket.end('unix\n'));
    await new Promise<void>((resolve) => unix.listen(path.join(dir, 's.sock'), resolve));
    expect(await outcome(net.connect(path.join(dir, 's.sock')))).toBe('data: unix');
    await new Promise((resolve) => unix.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('when a test connects to an address outside loopback, then the connection is refused with an error naming it', async () => {
    // Without the guard this would connect: Linux routes 0.0.0.0 to this host.
    expect(await outcome(net.connect(port, '0.0.0.0'))).toMatch(/^error: network guard: .*refused 0\.0\.0\.0$/);
    expect(await outcome(tls.connect({ port, host: '0.0.0.0' }))).toMatch(/refused 0\.0\.0\.0$/);
    const refused = await new Promise<Error>((resolve) => http.get(`http://0.0.0.0:${port}/`).on('error', resolve));
    expect(refused).toMatchObject({ code: 'ERR_NETWORK_GUARD', host: '0.0.0.0' });
    await expect(fetch(`http://0.0.0.0:${port}/`)).rejects.toMatchObject({ cause: { code: 'ERR_NETWORK_GUARD' } });
  });

  it("when a test's own resolver maps a name outside loopback, then the connection is refused naming the name and the address", async () => {
    const resolver =
      (address: string): net.LookupFunction =>
      (_host, options, callback) =>
        options.all
          ? (callback as (e: null, all: dns.LookupAddress[]) => void)(null, [{ address, family: 4 }])
          : callback(null, address, 4);
    expect(await outcome(net.connect({ port, host: 'shop.example', lookup: resolver('0.0.0.0') }))).toMatch(
      /refused shop\.example \(0\.0\.0\.0\)$/,
    );
    expect(await outcome(net.connect({ port, host: 'shop.example', lookup: resolver('0.0.0.0'), autoSelectFamily: false }))).toMatch(
      /refused shop\.example \(0\.0\.0\.0\)$/,
    );
    // The same resolver mapping to loopback is how the enrichment tests reach their fake sites.
    expect(await outcome(net.connect({ port, host: 'shop.example', lookup: resolver('127.0.0.1') }))).toBe('data: hello');
  });

  it('when a name other than localhost is looked up or connected to, then it is refused before any DNS query', async () => {
    const asked: string[] = [];
    const recording = ((hostname: string, _options: unknown, callback: (e: null, address: string, family: number) => void) => {
      asked.push(hostname);
      callback(null, '127.0.0.1', 4);
    }) as unknown as typeof dns.lookup;
    const guarded = guardLookup(recording);
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => guarded('example.com', {}, (e) => resolve(e)));
    expect(error?.message).toMatch(/refused example\.com$/);
    await new Promise<void>((resolve) => guarded('localhost', {}, () => resolve()));
    expect(asked).toEqual(['localhost']);

    await expect(dns.promises.lookup('example.com')).rejects.toThrow(/refused example\.com$/);
    expect(await outcome(net.connect(443, 'example.com'))).toMatch(/refused example\.com$/);
    await expect(fetch('https://example.com/')).rejects.toMatchObject({ cause: { code: 'ERR_NETWORK_GUARD', host: 'example.com' } });
  });

  it('when a test starts a node process with its environment, then the guard refuses there too', () => {
    expect(process.env.NODE_OPTIONS).toContain(path.join(__dirname, 'network-guard.js'));
    const child = spawnSync(
      process.execPath,
      [
        '-e',
        `require('node:net').connect(${port}, '0.0.0.0').on('error', (e) => console.log(e.message)).on('data', (d) => console.log('connected'))`,
      ],
      { env: { ...process.env }, encoding: 'utf8', timeout: 10_000 },
    );
    expect(child.stdout.trim()).toMatch(/^network guard: .*refused 0\.0\.0\.0$/);
  });
});
