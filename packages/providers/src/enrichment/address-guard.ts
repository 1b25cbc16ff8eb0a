import { isIP } from 'net';

/**
 * Whether an address must never be connected to on behalf of a third-party URL (SSRF): private,
 * loopback, link-local, shared, benchmarking, multicast and reserved space. Anything that does
 * not parse as an IP address is forbidden too, so a malformed resolver answer cannot slip through.
 */
export function isForbiddenAddress(ip: string): boolean {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const version = isIP(stripZone(bare));
  if (version === 4) {
    const octets = parseIPv4(bare);
    return octets === null || isForbiddenIPv4(octets);
  }
  if (version === 6) {
    const groups = parseIPv6(stripZone(bare));
    return groups === null || isForbiddenIPv6(groups);
  }
  return true;
}

function stripZone(ip: string): string {
  const percent = ip.indexOf('%');
  return percent < 0 ? ip : ip.slice(0, percent);
}

function isForbiddenIPv4([a, b, c]: readonly number[]): boolean {
  if (a === undefined || b === undefined || c === undefined) return true;
  return (
    a === 0 || // "this network"
    a === 10 ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT, often reaches provider internals
    a === 127 ||
    (a === 169 && b === 254) || // link-local, home of cloud metadata endpoints
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 0 && c === 0) ||
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224 // multicast, reserved and broadcast
  );
}

function isForbiddenIPv6(groups: readonly number[]): boolean {
  const g = (i: number): number => groups[i] ?? 0;
  const firstFiveZero = g(0) === 0 && g(1) === 0 && g(2) === 0 && g(3) === 0 && g(4) === 0;
  const embeddedV4 = (hi: number, lo: number): number[] => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
  // IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible form (::a.b.c.d, which also
  // covers :: and ::1) reach the IPv4 address, so they get the IPv4 verdict.
  if (firstFiveZero && (g(5) === 0xffff || g(5) === 0)) return isForbiddenIPv4(embeddedV4(g(6), g(7)));
  // NAT64 and 6to4 embed an IPv4 destination as well
  if (g(0) === 0x64 && g(1) === 0xff9b && g(2) === 0 && g(3) === 0 && g(4) === 0 && g(5) === 0) {
    return isForbiddenIPv4(embeddedV4(g(6), g(7)));
  }
  if (g(0) === 0x2002) return isForbiddenIPv4(embeddedV4(g(1), g(2)));
  const first = g(0);
  return (
    (first & 0xfe00) === 0xfc00 || // unique local fc00::/7
    (first & 0xffc0) === 0xfe80 || // link-local fe80::/10
    (first & 0xffc0) === 0xfec0 || // deprecated site-local fec0::/10
    (first & 0xff00) === 0xff00 // multicast ff00::/8
  );
}

function parseIPv4(ip: string): number[] | null {
  const parts = ip.split('.');
  if (parts.length !== 4) return null;
  const octets = parts.map((part) => (/^\d{1,3}$/.test(part) ? Number(part) : NaN));
  return octets.every((o) => o >= 0 && o <= 255) ? octets : null;
}

/** Eight 16-bit groups; expects input that net.isIP already accepted as IPv6. */
function parseIPv6(ip: string): number[] | null {
  let text = ip.toLowerCase();
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIPv4(tail);
    if (v4 === null) return null;
    const [a = 0, b = 0, c = 0, d = 0] = v4;
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const toGroups = (half: string | undefined): string[] => (half ? half.split(':') : []);
  const head = toGroups(halves[0]);
  const rest = toGroups(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...head, ...Array<string>(halves.length === 1 ? 0 : missing).fill('0'), ...rest];
  if (!all.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return null;
  return all.map((group) => parseInt(group, 16));
}
