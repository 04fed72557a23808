// The native addon (native/dot) and its JavaScript fallbacks agree to the last bit: the vector leg's dot products and the default embedder's pooling.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  BLOCK, blockedCopy, dots8InJs, dotsInJs, nativeBlockedDots, nativeDots, nativeDots8, nativeDots8Lists, nativeDots8ListsTop, nativeListHandle, nativeListHandleId,
} from '../../shared/search/vectors/dots.js';
import { nativeWeightedRows, weightedRowsInJs } from '../../shared/llm/adapters/glove-pool.js';
import { prng } from '../helpers/prng.js';

describe('dot products', () => {
  it('the addon is built (npm ci builds it; without it vector scans are several times slower)', () => {
    expect(nativeDots).not.toBeNull();
    expect(nativeDots8).not.toBeNull();
    expect(nativeDots8Lists).not.toBeNull();
    expect(nativeDots8ListsTop).not.toBeNull();
    expect(nativeListHandle).not.toBeNull();
    expect(nativeBlockedDots).not.toBeNull();
  });

  it('a scan with its candidates chosen off the event loop: the k best present rows by product times scale, ties to the lower unit, scored again from their vectors', async () => {
    const rand = prng(14);
    const dims = 24;
    const q = Int8Array.from({ length: dims }, () => Math.round(rand() * 254 - 127));
    const qd = Float64Array.from({ length: dims }, () => rand() * 2 - 1);
    const counts = [40, 0, 300, 1, 77];
    let next = 0;
    // Rows of four patterns and three scales: a dozen distinct scores, so ties decide who enters at every k.
    const patterns = Array.from({ length: 4 }, () => Int8Array.from({ length: dims }, () => Math.round(rand() * 254 - 127)));
    const codes = counts.map((rows) => {
      const c = new Int8Array(rows * dims + 5);
      for (let j = 0; j < rows; j++) c.set(patterns[Math.floor(rand() * 4)], j * dims);
      return c;
    });
    const scales = counts.map((rows) => Float32Array.from({ length: rows + 2 }, () => [0.5, 1, 0.25][Math.floor(rand() * 3)]));
    const units = counts.map((rows) => Int32Array.from({ length: rows + 2 }, () => (rand() < 0.1 ? -1 : next++)));
    const vectors = counts.map((rows) => Float32Array.from({ length: (rows + 2) * dims }, () => rand() * 2 - 1));
    const present = Uint8Array.from({ length: next }, () => (rand() < 0.9 ? 1 : 0));
    const all: { unit: number; approx: number; list: number; row: number }[] = [];
    counts.forEach((rows, i) => {
      const products = new Int32Array(rows);
      dots8InJs(q, codes[i], dims, rows, products);
      for (let j = 0; j < rows; j++) {
        const u = units[i][j];
        if (u >= 0 && present[u]) all.push({ unit: u, approx: products[j] * scales[i][j], list: i, row: j });
      }
    });
    const exactOf = (list: number, row: number) => {
      const one = new Float64Array(1);
      dotsInJs(qd, vectors[list].subarray(row * dims, (row + 1) * dims), dims, 1, one);
      return one[0];
    };
    const handles = counts.map((_, i) => nativeListHandle!(codes[i], scales[i], units[i], vectors[i], dims));
    const ids = Int32Array.from(handles, (h) => nativeListHandleId!(h));
    for (const k of [1, 7, 150, all.length + 10]) {
      const expected = all.slice().sort((a, b) => b.approx - a.approx || a.unit - b.unit).slice(0, k)
        .map(({ unit, list, row }) => ({ unit, list, row, score: exactOf(list, row) })).sort((a, b) => a.unit - b.unit);
      const out = [new Int32Array(k).fill(-9), new Float64Array(k), new Int32Array(k), new Int32Array(k)] as const;
      const n = await nativeDots8ListsTop!(q, qd, ids, Int32Array.from(counts), dims, present, k, ...out);
      const got = Array.from({ length: n }, (_, i) => ({ unit: out[0][i], list: out[2][i], row: out[3][i], score: out[1][i] })).sort((a, b) => a.unit - b.unit);
      expect(got).toEqual(expected);
    }
    // More rows than a list holds, an id no live handle has, lists not given as ids, or no room for k: refused before anything runs.
    const out = [new Int32Array(5), new Float64Array(5), new Int32Array(5), new Int32Array(5)] as const;
    expect(() => nativeDots8ListsTop!(q, qd, ids, Int32Array.from([41, 0, 300, 1, 77]), dims, present, 5, ...out)).toThrow(TypeError);
    for (const bad of [-1, 2 ** 30]) {
      expect(() => nativeDots8ListsTop!(q, qd, Int32Array.from([bad, ...ids.slice(1)]), Int32Array.from(counts), dims, present, 5, ...out)).toThrow(TypeError);
    }
    expect(() => nativeDots8ListsTop!(q, qd, handles as unknown as Int32Array, Int32Array.from(counts), dims, present, 5, ...out)).toThrow(TypeError);
    expect(() => nativeDots8ListsTop!(q, qd, ids, Int32Array.from(counts), dims, present, 6, ...out)).toThrow(TypeError);
    // Each handle has its own id.
    expect(new Set(ids).size).toBe(ids.length);
    expect(() => nativeListHandle!(codes[0], scales[0], units[0] as unknown as Int32Array, new Float64Array(3) as unknown as Float32Array, dims)).toThrow(TypeError);
  });

  it('a handle collected while a scan uses it keeps its arrays until the scan ends; its id is handed out again after', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const dims = 8;
    const rows = 2000;
    const make = () => {
      const codes = Int8Array.from({ length: rows * dims }, (_, i) => (i % 7) - 3);
      const scales = new Float32Array(rows).fill(1);
      const units = Int32Array.from({ length: rows }, (_, j) => j);
      const vectors = Float32Array.from({ length: rows * dims }, (_, i) => (i % 5) / 5);
      return nativeListHandle!(codes, scales, units, vectors, dims);
    };
    const q = Int8Array.from({ length: dims }, (_, i) => i - 4);
    const qd = Float64Array.from({ length: dims }, (_, i) => (i - 4) / 4);
    const present = new Uint8Array(rows).fill(1);
    const scan = (id: number) => {
      const out = [new Int32Array(10), new Float64Array(10), new Int32Array(10), new Int32Array(10)] as const;
      return nativeDots8ListsTop!(q, qd, Int32Array.of(id), Int32Array.of(rows), dims, present, 10, ...out).then((n) => [n, Array.from(out[1])]);
    };
    const kept = make();
    const expected = await scan(nativeListHandleId!(kept));
    let dropped: object | null = make();
    const id = nativeListHandleId!(dropped);
    const pending = scan(id);
    dropped = null;
    gc();
    await new Promise((r) => setImmediate(r));
    expect(await pending).toEqual(expected);
    // Collected now that no scan uses it: its id is refused, then another handle gets it.
    for (let i = 0; i < 5; i++) {
      gc();
      await new Promise((r) => setImmediate(r));
    }
    await expect(async () => scan(id)).rejects.toThrow(TypeError);
    const fresh = Array.from({ length: 4 }, make);
    expect(fresh.map((h) => nativeListHandleId!(h))).toContain(id);
  });

  it('blocked centroids: the same scores as dots over the row-major vectors, bit for bit, whatever the count', () => {
    const rand = prng(15);
    for (const [dims, count] of [[1, 1], [3, 5], [100, 8], [100, 8001], [7, 0], [33, BLOCK + 1]]) {
      const q = Float64Array.from({ length: dims }, () => rand() * 2 - 1);
      const data = Float32Array.from({ length: dims * count }, () => rand() * 2 - 1);
      const a = new Float64Array(count);
      const b = new Float64Array(count).fill(NaN);
      dotsInJs(q, data, dims, count, a);
      nativeBlockedDots!(q, blockedCopy(data, dims, count), dims, count, b);
      expect(Buffer.from(b.buffer).equals(Buffer.from(a.buffer))).toBe(true);
    }
    expect(() => nativeBlockedDots!(new Float64Array(4), new Float32Array(4 * 8), 4, 9, new Float64Array(9))).toThrow(TypeError);
  });

  it('int8 codes of several lists off the event loop: the products of each list, one list after another', async () => {
    const rand = prng(13);
    const dims = 100;
    const q = Int8Array.from({ length: dims }, () => Math.round(rand() * 254 - 127));
    const counts = [5, 0, 17, 1000, 1];
    const lists = counts.map((rows) => Int8Array.from({ length: rows * dims + 7 }, () => Math.round(rand() * 254 - 127)));
    const out = new Int32Array(counts.reduce((a, b) => a + b, 0) + 3).fill(-1);
    let settled = false;
    const pending = nativeDots8Lists!(q, lists, Int32Array.from(counts), dims, out).then(() => (settled = true));
    // Not computed inside the call: the promise settles on a later turn.
    expect(settled).toBe(false);
    await pending;
    const expected: number[] = [];
    counts.forEach((rows, i) => {
      const one = new Int32Array(rows);
      dots8InJs(q, lists[i], dims, rows, one);
      expected.push(...one);
    });
    expect(Array.from(out.subarray(0, expected.length))).toEqual(expected);
    expect(Array.from(out.subarray(expected.length))).toEqual([-1, -1, -1]);
    // More rows than a list holds, or than out has room for: refused before anything runs.
    expect(() => nativeDots8Lists!(q, lists, Int32Array.from([6, 0, 17, 1000, 1]), dims, out)).toThrow(TypeError);
    expect(() => nativeDots8Lists!(q, lists, Int32Array.from(counts), dims, new Int32Array(10))).toThrow(TypeError);
    expect(() => nativeDots8Lists!(q, [new Float32Array(dims) as unknown as Int8Array], Int32Array.from([1]), dims, out)).toThrow(TypeError);
  });

  it('int8 codes: native and JavaScript give the same integer products, extremes included', () => {
    const rand = prng(12);
    for (const [dims, rows] of [[1, 1], [3, 5], [100, 127], [100, 128], [384, 9], [7, 0], [33, 17]]) {
      const q = Int8Array.from({ length: dims }, () => Math.round(rand() * 254 - 127));
      const data = Int8Array.from({ length: dims * rows + 3 }, () => Math.round(rand() * 254 - 127));
      const a = new Int32Array(rows);
      const b = new Int32Array(rows);
      dots8InJs(q, data, dims, rows, a);
      nativeDots8!(q, data, dims, rows, b);
      expect(Array.from(b)).toEqual(Array.from(a));
    }
    const low = new Int8Array(384).fill(-128);
    const out = new Int32Array(1);
    nativeDots8!(low, low, 384, 1, out);
    expect(out[0]).toBe(384 * 128 * 128);
    expect(() => nativeDots8!(new Int8Array(4), new Int8Array(7), 4, 2, new Int32Array(2))).toThrow(TypeError);
  });

  it('native and JavaScript give the same scores, bit for bit, for any dims and row count', () => {
    const rand = prng(11);
    for (const [dims, rows] of [[1, 1], [3, 5], [100, 127], [100, 128], [384, 9], [7, 0]]) {
      const q = Float64Array.from({ length: dims }, () => Math.fround(rand() * 2 - 1));
      const data = Float32Array.from({ length: dims * rows + 3 }, () => rand() * 2 - 1);
      const a = new Float64Array(rows);
      const b = new Float64Array(rows);
      dotsInJs(q, data, dims, rows, a);
      nativeDots!(q, data, dims, rows, b);
      expect(Array.from(b)).toEqual(Array.from(a));
    }
  });

  it('refuses arrays too short for the rows asked for instead of reading past them', () => {
    expect(() => nativeDots!(new Float64Array(4), new Float32Array(7), 4, 2, new Float64Array(2))).toThrow(TypeError);
    expect(() => nativeDots!(new Float64Array(4), new Float32Array(8), 4, 2, new Float64Array(1))).toThrow(TypeError);
  });

  it('pooling word vectors: native and JavaScript give the same sums, bit for bit, rows repeated and in any order', () => {
    expect(nativeWeightedRows).not.toBeNull();
    const rand = prng(17);
    for (const [dims, tableRows, count] of [[100, 1000, 218], [4, 3, 0], [8, 5, 40], [100, 1, 3]]) {
      const vectors = Float32Array.from({ length: dims * tableRows }, () => rand() * 2 - 1);
      const weights = Float32Array.from({ length: tableRows }, () => rand());
      const rows = Int32Array.from({ length: count + 2 }, () => Math.floor(rand() * tableRows));
      const start = Float64Array.from({ length: dims }, () => rand());
      const a = start.slice();
      const b = start.slice();
      weightedRowsInJs(a, vectors, weights, dims, rows, count);
      nativeWeightedRows!(b, vectors, weights, dims, rows, count);
      expect(Array.from(b)).toEqual(Array.from(a));
    }
  });

  it('pooling refuses a row outside the table, and adds nothing then', () => {
    const acc = new Float64Array(4);
    expect(() => nativeWeightedRows!(acc, new Float32Array(8), new Float32Array(2), 4, Int32Array.of(0, 2), 2)).toThrow(RangeError);
    expect(() => nativeWeightedRows!(acc, new Float32Array(8), new Float32Array(2), 4, Int32Array.of(-1), 1)).toThrow(RangeError);
    expect(() => nativeWeightedRows!(acc, new Float32Array(8), new Float32Array(2), 4, Int32Array.of(0), 2)).toThrow(TypeError);
    expect(Array.from(acc)).toEqual([0, 0, 0, 0]);
  });
});
