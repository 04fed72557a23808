import { isIPv4, isIPv6 } from 'node:net';

/**
 * What one client is, for every per-client rule (rate limits, wrong-key limits, learning's distinct
 * networks): an IPv4 address itself (also when written IPv4-mapped, `::ffff:1.2.3.4` or `::ffff:102:304`),
 * and for IPv6 its /64, since one subscriber line gets a whole /64 and could otherwise speak from as many
 * addresses as it likes. Anything else (no address known) stands for itself.
 */
export function clientNetwork(address: string): string {
  if (isIPv4(address) || !isIPv6(address)) return address;
  const groups = ipv6Groups(address);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 255, groups[7] >> 8, groups[7] & 255].join('.');
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address: `::` filled in, a trailing dotted IPv4 part as two groups, a zone dropped. */
function ipv6Groups(address: string): number[] {
  const [head, tail] = address.split('%')[0].split('::');
  const groups = (s: string | undefined) =>
    s
      ? s.split(':').flatMap((g) => {
          if (!g.includes('.')) return [parseInt(g, 16)];
          const [a, b, c, d] = g.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        })
      : [];
  const h = groups(head);
  const t = groups(tail);
  const fill = tail === undefined ? [] : Array<number>(8 - h.length - t.length).fill(0);
  return [...h, ...fill, ...t];
}
