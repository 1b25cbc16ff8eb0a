import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeDnsServer, type FakeDnsServer } from '@leadgen/testing';
import { testConfig } from '../../../test/harness';
import { createDomainControlCheck } from '../src/use-cases/domain-control-check';

// A domain's proof of control (decision 042) through the configured resolvers and the network guard: a local
// DNS server publishes the names, a local website serves /.well-known/ files.

describe('domain control check', () => {
  let dns: FakeDnsServer;
  let site: Server;
  const files = new Map<string, string>();
  const env = () => ({ DNS_SERVERS: dns.server, OBJECTION_WELL_KNOWN_PORT: String((site.address() as AddressInfo).port) });

  beforeAll(async () => {
    dns = await startFakeDnsServer();
    site = createServer((req, res) => {
      const body = files.get(`${req.headers.host?.split(':')[0]}${req.url}`);
      res.writeHead(body === undefined ? 404 : 200, { 'Content-Type': 'text/plain' }).end(body ?? 'no');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await dns.close();
    site.close();
  });

  it('when the TXT record holds the token, then dns_txt; another token proves nothing', async () => {
    dns.zones['_leadgen-objection.txt-proof.test'] = { txt: 'leadgen-objection=abc' };
    const check = createDomainControlCheck(testConfig(env()));
    expect(await check('txt-proof.test', 'abc')).toBe('dns_txt');
    expect(await check('txt-proof.test', 'abd')).toBeNull();
    expect(await check('nothing-published.test', 'abc')).toBeNull();
  });

  it('when the file holds the token, then well_known only while private networks are allowed: the guard refuses loopback otherwise', async () => {
    dns.zones['file-proof.test'] = { a: ['127.0.0.1'] };
    files.set('file-proof.test/.well-known/leadgen-objection.txt', 'tok123\n');
    const allowed = createDomainControlCheck(testConfig({ ...env(), ENRICHMENT_ALLOW_PRIVATE_NETWORKS: '1' }));
    expect(await allowed('file-proof.test', 'tok123')).toBe('well_known');
    expect(await allowed('file-proof.test', 'tok12')).toBeNull();
    const guarded = createDomainControlCheck(testConfig({ ...env(), ENRICHMENT_ALLOW_PRIVATE_NETWORKS: '0' }));
    expect(await guarded('file-proof.test', 'tok123')).toBeNull();
  });
});
