/**
 * Lucene stores a field's length in one byte (SmallFloat.intToByte4): exact below 24, then four
 * significant bits. BM25 sees the decoded value, so reproducing it reproduces Lucene's ranking, which
 * is what users moving off Solr compare against.
 */
function longToInt4(i: number): number {
  const numBits = 32 - Math.clz32(i);
  if (numBits < 4) return i;
  const shift = numBits - 4;
  return ((i >>> shift) & 0x07) | ((shift + 1) << 3);
}

function int4ToLong(i: number): number {
  const bits = i & 0x07;
  const shift = (i >>> 3) - 1;
  return shift === -1 ? bits : (bits | 0x08) * 2 ** shift;
}

const NUM_FREE_VALUES = 255 - longToInt4(2 ** 31 - 1);

/**
 * The one-byte code of a field of `length` tokens (Lucene's norm byte): the engine keeps field lengths
 * as these codes, a byte per section instead of four. At a million sections the lengths a search
 * reads per posting then fit the CPU's cache (1 MB per field, not 4).
 */
export function lengthCode(length: number): number {
  return length < NUM_FREE_VALUES ? length : NUM_FREE_VALUES + longToInt4(length - NUM_FREE_VALUES);
}

/** LENGTH_OF_CODE[lengthCode(n)] === n for every n luceneLength returns. */
export const LENGTH_OF_CODE = Int32Array.from({ length: 256 }, (_, c) => (c < NUM_FREE_VALUES ? c : NUM_FREE_VALUES + int4ToLong(c - NUM_FREE_VALUES)));

/** The length Lucene's BM25 uses for a field of `length` tokens. */
export function luceneLength(length: number): number {
  return LENGTH_OF_CODE[lengthCode(length)];
}
