/**
 * What tokens became, found by a token's place in a text and its hash (TokenSpans), so a token met
 * before is found without making its string: open addressing over a power-of-two table of entry
 * numbers, keys compared by their characters. Holds at most `limit` tokens and is emptied when full,
 * so junk input cannot grow it.
 */
export class TokenMemo<V> {
  private readonly slots: Int32Array;
  private readonly mask: number;
  private readonly hashes: Int32Array;
  private readonly keys: string[] = [];
  private readonly values: V[] = [];

  constructor(private readonly limit: number) {
    let capacity = 16;
    while (capacity < limit * 2) capacity *= 2;
    this.slots = new Int32Array(capacity);
    this.mask = capacity - 1;
    this.hashes = new Int32Array(limit);
  }

  get size(): number {
    return this.keys.length;
  }

  /** The value of the token `text[start, end)` whose hash is `hash`, if it was added. */
  find(text: string, start: number, end: number, hash: number): V | undefined {
    const length = end - start;
    for (let s = hash & this.mask; ; s = (s + 1) & this.mask) {
      const e = this.slots[s];
      if (e === 0) return undefined;
      if (this.hashes[e - 1] === hash) {
        const key = this.keys[e - 1];
        if (key.length === length && text.startsWith(key, start)) return this.values[e - 1];
      }
    }
  }

  /** Adds a token not in the memo (find() said so), emptying the memo first when it is full. */
  add(key: string, hash: number, value: V): void {
    if (this.keys.length >= this.limit) this.clear();
    const e = this.keys.length;
    this.keys.push(key);
    this.values.push(value);
    this.hashes[e] = hash;
    let s = hash & this.mask;
    while (this.slots[s] !== 0) s = (s + 1) & this.mask;
    this.slots[s] = e + 1;
  }

  clear(): void {
    this.slots.fill(0);
    this.keys.length = 0;
    this.values.length = 0;
  }
}
