import ipaddr from 'ipaddr.js';

/**
 * Whether an address must never be connected to on behalf of a third-party URL (SSRF). The kept
 * `ipaddr.js` classifies it; only plain public unicast may be reached: private, loopback,
 * link-local, shared (CGNAT), benchmarking, multicast, reserved, documentation and Teredo are
 * refused; NAT64 and 6to4 get the verdict of the IPv4 address they embed (an IPv6-only host with
 * DNS64 reaches every IPv4 site through 64:ff9b::/96).
 * Anything that does not parse as an IP address is forbidden too, so a malformed resolver answer
 * cannot slip through.
 */
export function isForbiddenAddress(ip: string): boolean {
  const bare = stripZone(ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip);
  // ipaddr.js also accepts legacy forms (`0x7f.1`, `127.1`) that net.isIP refuses; resolvers never answer so
  if (!ipaddr.IPv4.isValidFourPartDecimal(bare) && !ipaddr.IPv6.isValid(bare)) return true;
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process() turns ::ffff:a.b.c.d into the IPv4 address it reaches
    address = ipaddr.process(bare);
  } catch {
    return true;
  }
  if (address.kind() === 'ipv6') {
    const v6 = address as ipaddr.IPv6;
    const parts = v6.parts;
    const embedded = (hi: number, lo: number): string => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
    if (v6.range() === 'rfc6052' && parts.slice(2, 6).every((p) => p === 0))
      return isForbiddenAddress(embedded(parts[6] ?? 0, parts[7] ?? 0));
    if (v6.range() === '6to4') return isForbiddenAddress(embedded(parts[1] ?? 0, parts[2] ?? 0));
    // the deprecated IPv4-compatible form (::a.b.c.d) reaches the IPv4 address too
    if (parts.slice(0, 6).every((p) => p === 0) && !(parts[6] === 0 && (parts[7] ?? 0) <= 1)) {
      return isForbiddenAddress(embedded(parts[6] ?? 0, parts[7] ?? 0));
    }
  }
  return address.range() !== 'unicast';
}

function stripZone(ip: string): string {
  const percent = ip.indexOf('%');
  return percent < 0 ? ip : ip.slice(0, percent);
}
