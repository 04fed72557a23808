import { isIP } from 'node:net';
import { z } from 'zod';

/** Express's names for address ranges (proxy-addr): 127.0.0.0/8 and ::1; 169.254.0.0/16 and fe80::/10; private IPv4 and fc00::/7. */
const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

const WHAT_TO_WRITE =
  "name the proxies instead: loopback (a proxy on this host), uniquelocal (private networks, e.g. a container network " +
  "the API is reachable on only through its proxy), linklocal, or their addresses and ranges, comma-separated " +
  '(10.0.0.5, 10.0.0.0/8, fd00::/8); false trusts none';

/** Why one entry cannot name a proxy, or null when it can. */
function entryProblem(entry: string): string | null {
  if (NAMED_RANGES.includes(entry)) return null;
  const [address, prefix, extra] = entry.split('/');
  const version = isIP(address);
  if (!version || address.includes('%') || extra !== undefined) {
    return `'${entry}' is neither an IP address, a CIDR range (10.0.0.0/8) nor one of ${NAMED_RANGES.join(', ')}`;
  }
  if (prefix === undefined) return null;
  const max = version === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) return `'${entry}': the prefix length must be a whole number from 1 to ${max}`;
  if (Number(prefix) === 0) return `'${entry}' trusts every address, as true would; ${WHAT_TO_WRITE}`;
  return null;
}

/**
 * QUARRY_TRUST_PROXY, for Express's `trust proxy`: the proxies whose X-Forwarded-For is believed, by address.
 * `true` and hop counts are refused: they believe whatever connects, so a client that reaches the API without
 * going through the proxy writes its own address into X-Forwarded-For and escapes every per-client limit.
 */
export const trustProxySchema = z
  .string()
  .transform((v, ctx): false | string[] => {
    const value = v.trim();
    if (value === 'false') return false;
    if (value === 'true') {
      ctx.addIssue({ code: 'custom', message: `true believes X-Forwarded-For from any client, who can then choose its own address; ${WHAT_TO_WRITE}` });
      return z.NEVER;
    }
    if (/^\d+$/.test(value)) {
      ctx.addIssue({
        code: 'custom',
        message: `a hop count (${value}) believes whatever connects directly, so a client reaching the API without the proxy chooses its own address; ${WHAT_TO_WRITE}`,
      });
      return z.NEVER;
    }
    const entries = value.split(',').map((e) => e.trim()).filter(Boolean);
    const problems = entries.map(entryProblem).filter((p): p is string => p !== null);
    if (!entries.length) problems.push(`no proxy named; ${WHAT_TO_WRITE}`);
    for (const message of problems) ctx.addIssue({ code: 'custom', message });
    return problems.length ? z.NEVER : entries;
  });
