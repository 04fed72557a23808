import { BlockList, isIP } from 'node:net';

/**
 * Addresses a crawler must not reach unless the operator allows it: a site could otherwise point a
 * link (or its DNS) at the Quarry host's own services or the operator's network.
 */
const nonPublic = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata endpoints
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const) nonPublic.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, benchmarking)
  ['2001:db8::', 32], // documentation
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translates into the operator's own network
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // old site-local
  ['ff00::', 8], // multicast
] as const) nonPublic.addSubnet(net, prefix, 'ipv6');

/** The sixteen bytes of an IPv6 address, or null when it is not one. */
function ipv6Bytes(address: string): number[] | null {
  if (isIP(address) !== 6) return null;
  // The URL parser rewrites every spelling (dotted tail, zeros, case) to one compressed hex form.
  const canonical = new URL(`http://[${address.replace(/%.*$/, '')}]/`).hostname.slice(1, -1);
  const [head, tail] = canonical.split('::') as [string, string | undefined];
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const before = part(head);
  const after = part(tail);
  const groups = tail === undefined ? before : [...before, ...Array(8 - before.length - after.length).fill(0), ...after];
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), if any. */
function embeddedIpv4(bytes: number[]): string | null {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  const quad = (at: number) => bytes.slice(at, at + 4).join('.');
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return quad(12); // ::ffff:a.b.c.d
  if (zeros(0, 12)) return quad(12); // ::a.b.c.d (deprecated "compatible" form)
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12)) return quad(12);
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return quad(2); // 2002:aabb:ccdd::/48
  return null;
}

/** True when the address (IPv4 or IPv6 literal) is on the public internet. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !nonPublic.check(address, 'ipv4');
  if (family !== 6) return false;
  const bytes = ipv6Bytes(address)!;
  const v4 = embeddedIpv4(bytes);
  if (v4 !== null && v4 !== '0.0.0.0' && !isPublicAddress(v4)) return false;
  const hex = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i] << 8) | bytes[2 * i + 1]).toString(16)).join(':');
  return !nonPublic.check(hex, 'ipv6');
}

/**
 * RFC 6761: `localhost` and every name under it are loopback whatever a resolver says, so they are refused
 * without a lookup. A name may end in the root's dot (`localhost.`), which the URL parser keeps.
 */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}
