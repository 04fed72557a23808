import { describe, expect, it } from 'vitest';
import { clientHash } from '../../shared/auth/client-hash.js';
import { clientNetwork } from '../../shared/auth/client-network.js';

describe('clientNetwork: what one client can vary without counting as another', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:85a3:12:8a2e:370:7334:1', '2001:db8:85a3:12::/64'],
    ['2001:db8:85a3:12::ffff', '2001:db8:85a3:12::/64'],
    ['2001:0db8:85a3:0012:0000:0000:0000:0001', '2001:db8:85a3:12::/64'],
    ['2001:db8::', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::ffff:cb00:7107', '203.0.113.7'],
    ['0:0:0:0:0:ffff:203.0.113.7', '203.0.113.7'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::203.0.113.7', '64:ff9b:0:0::/64'],
    ['unknown', 'unknown'],
  ])('%s -> %s', (address, network) => {
    expect(clientNetwork(address)).toBe(network);
  });

  it('hashes the network with the secret: the same for one /64, different across networks and secrets, never the address', () => {
    const a = clientHash('secret', '2001:db8:85a3:12::1');
    expect(clientHash('secret', '2001:db8:85a3:12:ffff:ffff:ffff:ffff')).toBe(a);
    expect(clientHash('secret', '2001:db8:85a3:13::1')).not.toBe(a);
    expect(clientHash('other', '2001:db8:85a3:12::1')).not.toBe(a);
    expect(clientHash('secret', '203.0.113.7')).toBe(clientHash('secret', '::ffff:203.0.113.7'));
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});
