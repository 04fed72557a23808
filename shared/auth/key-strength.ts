/** The least an operator-chosen key must have: its length, and the estimated strength below. */
export const KEY_RULE = { minLength: 16, minBits: 44 };

/** The characters a guesser would try for a key using these classes: lower case, upper case, digits, anything else. */
function poolSize(key: string): number {
  const classes: Array<[RegExp, number]> = [[/[a-z]/, 26], [/[A-Z]/, 26], [/[0-9]/, 10], [/[^a-zA-Z0-9]/, 33]];
  return classes.reduce((n, [re, size]) => n + (re.test(key) ? size : 0), 0);
}

/**
 * A guesser's estimate of a key's strength in bits: each character worth log2 of the pool its classes make,
 * except characters a guesser gets for free: one that repeats or continues its predecessor (`aaaa`, `abcd`,
 * `4321`), and the second character of a pair seen before (`passwordpassword`, `hunter2hunter2`). Random keys
 * score close to length x log2(pool); words are not recognised, so the estimate is generous for them.
 */
export function keyStrengthBits(key: string): number {
  const chars = [...key];
  const pairs = new Set<string>();
  let surprising = 0;
  for (let i = 0; i < chars.length; i++) {
    if (i === 0) {
      surprising++;
      continue;
    }
    const step = chars[i].codePointAt(0)! - chars[i - 1].codePointAt(0)!;
    const pair = chars[i - 1] + chars[i];
    if (Math.abs(step) > 1 && !pairs.has(pair)) surprising++;
    pairs.add(pair);
  }
  return Math.floor(surprising * Math.log2(Math.max(2, poolSize(key))));
}

/** Why a key an operator set is too easy to guess, or null when it is strong enough (KEY_RULE). */
export function weakKeyReason(key: string): string | null {
  const rule =
    `use at least ${KEY_RULE.minLength} characters worth at least ${KEY_RULE.minBits} bits, where repeats, runs (aaaa, abcd, 4321) and ` +
    `repeated chunks (passwordpassword) count for nothing: a random key is best, e.g. openssl rand -base64 32`;
  if ([...key].length < KEY_RULE.minLength) return `must be at least ${KEY_RULE.minLength} characters; ${rule}`;
  const bits = keyStrengthBits(key);
  if (bits < KEY_RULE.minBits) return `is too easy to guess (about ${bits} bits); ${rule}`;
  return null;
}
