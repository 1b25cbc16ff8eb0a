import { isForbiddenAddress } from './address-guard';

describe('isForbiddenAddress', () => {
  it.each([
    ['0.0.0.0', '"this network" 0/8'],
    ['0.255.1.2', '"this network" 0/8'],
    ['10.0.0.1', 'private 10/8'],
    ['10.255.255.255', 'private 10/8'],
    ['100.64.0.1', 'shared 100.64/10'],
    ['100.127.255.254', 'shared 100.64/10'],
    ['127.0.0.1', 'loopback 127/8'],
    ['127.255.0.9', 'loopback 127/8'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['172.16.0.1', 'private 172.16/12'],
    ['172.31.255.255', 'private 172.16/12'],
    ['192.0.0.8', 'IETF protocol assignments 192.0.0/24'],
    ['192.168.1.1', 'private 192.168/16'],
    ['198.18.0.1', 'benchmarking 198.18/15'],
    ['198.19.255.255', 'benchmarking 198.18/15'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
  ])('when the IPv4 address is %s (%s), then it is forbidden', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.1',
    '192.169.0.1',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '169.253.1.1',
  ])('when the IPv4 address %s is public, then it is allowed', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(false);
  });

  it.each([
    ['2001:db8::1', 'documentation 2001:db8::/32 (ipaddr.js: reserved)'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo, whose IPv4 target is hidden'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback, uncompressed'],
    ['fc00::1', 'unique local fc00::/7'],
    ['fd12:3456:789a::1', 'unique local fc00::/7'],
    ['fe80::1', 'link-local fe80::/10'],
    ['fe80::1%eth0', 'link-local with a zone'],
    ['febf::1', 'link-local fe80::/10 upper end'],
    ['ff02::1', 'multicast ff00::/8'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:10.1.2.3', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback in hex'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
    ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
    ['[::1]', 'bracketed URL form'],
  ])('when the IPv6 address is %s (%s), then it is forbidden', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each(['2606:2800:220:1:248:1893:25c8:1946', '2001:4860:4860::8888', '::ffff:93.184.216.34', '::ffff:5db8:d822', '64:ff9b::808:808'])(
    'when the IPv6 address %s is public, then it is allowed',
    (ip) => {
      expect(isForbiddenAddress(ip)).toBe(false);
    },
  );

  it.each(['', 'localhost', 'example.com', '256.1.1.1', '1.2.3', '01.2.3.4x', 'fe80::zz', '1::2::3'])(
    'when the input %p is not an IP address, then it is forbidden (fail closed)',
    (input) => {
      expect(isForbiddenAddress(input)).toBe(true);
    },
  );
});
