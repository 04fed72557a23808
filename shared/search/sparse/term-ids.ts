/**
 * Stable term ids for sparse vectors: every process (API, workers, on any host) must give a term the
 * same dimension without sharing a dictionary, so the id is a hash of the analysed term. FNV-1a over
 * the UTF-16 code units, finished with MurmurHash3's fmix32 so that terms differing in their last
 * characters spread over the whole u32 range. Two terms may share an id (at a vocabulary of a million
 * terms, about a hundred pairs do); they then count as one term, which a ranking barely notices.
 */
export function termId(term: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) {
    h ^= term.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
