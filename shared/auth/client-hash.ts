import { isIPv4, isIPv6 } from 'node:net';
import { keyedHash } from './keyed-hash.js';

/**
 * The network a client address stands for: an IPv4 address itself (also when written IPv4-mapped,
 * `::ffff:1.2.3.4`), and for IPv6 its /64, since one subscriber line gets a whole /64 and could
 * otherwise speak from as many addresses as it likes.
 */
export function clientNetwork(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (isIPv4(address) || !isIPv6(address)) return address;
  return `${expandIpv6(address).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, `::` filled in (a trailing dotted IPv4 part counts as two groups). */
function expandIpv6(address: string): string[] {
  const [head, tail] = address.split('%')[0].split('::');
  const groups = (s: string | undefined) => (s ? s.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])) : []);
  const h = groups(head);
  const t = groups(tail);
  const fill = tail === undefined ? [] : Array<string>(8 - h.length - t.length).fill('0');
  return [...h, ...fill, ...t].map((g) => (parseInt(g, 16) || 0).toString(16));
}

/**
 * What learning stores of a client address: a keyed hash of its network, never the address (personal
 * data, like a session id), yet equal for every request from the same network.
 */
export function clientHash(secret: string, address: string): string {
  return keyedHash(secret, 'client', clientNetwork(address)).slice(0, 22);
}
