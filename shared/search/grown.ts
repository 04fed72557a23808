export type Growable = Int32Array | Uint32Array | Float64Array | Uint8Array;

/** `a`, or a copy of it twice as long as often as needed to hold `need` items. */
export function grown<T extends Growable>(a: T, need: number): T {
  if (need <= a.length) return a;
  let n = Math.max(16, a.length);
  while (n < need) n *= 2;
  const next = new (a.constructor as new (length: number) => T)(n);
  next.set(a);
  return next;
}
