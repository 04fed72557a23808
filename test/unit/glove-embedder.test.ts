import { beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createGloveEmbedder, type GloveEmbedder, GloveTable, loadGloveTable, readGloveTable, tokenize } from '../../shared/llm/adapters/glove-embedder.js';
import { createEmbedder } from '../../shared/llm/create-embedder.js';

// Maps the real 341k-word table (~150 MB; parsing the package takes ~2.5 s when it was never packed), once for the whole file.
let glove: GloveEmbedder;
beforeAll(async () => {
  glove = await createGloveEmbedder();
}, 60_000);

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);
const norm = (v: Float32Array) => Math.hypot(...v);

describe('tokenize', () => {
  it('lower-cases, splits on non-alphanumerics, keeps hyphenated compounds', () => {
    expect(tokenize("The T-cell's IL-6 response (p < 0.05), don't!")).toEqual(['the', 't-cell', 'il-6', 'response', 'p', '0', '05', 'dont']);
    expect(tokenize('  ...  ')).toEqual([]);
  });
});

describe('GloVe embedder', () => {
  it('has a stable id and 100 dimensions', () => {
    expect(glove.id).toBe('glove-6b-100d-sif@1');
    expect(glove.dimensions).toBe(100);
  });

  it('returns one L2-normalised vector per text, in order', async () => {
    const texts = ['Aspirin reduces the risk of heart attack.', 'Dogs are loyal animals.', 'Quantum computing uses qubits.'];
    const out = await glove.embed(texts);
    expect(out).toHaveLength(3);
    for (const v of out) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(100);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    const single = await glove.embed([texts[1]]);
    expect([...single[0]]).toEqual([...out[1]]);
  });

  it('is deterministic, across calls and instances', async () => {
    const text = 'Mitochondrial dysfunction contributes to neurodegeneration.';
    const [a] = await glove.embed([text]);
    const [b] = await glove.embed([text]);
    const [c] = await (await createGloveEmbedder()).embed([text]);
    expect([...b]).toEqual([...a]);
    expect([...c]).toEqual([...a]);
  });

  it('gives an all-zero vector, never NaN, for empty or unknown-word text', async () => {
    const out = await glove.embed(['', '   ', '!!! ??? ...', 'qzxvbnmw zzqqxxjj']);
    for (const v of out) {
      expect(v).toHaveLength(100);
      expect(v.every((x) => x === 0)).toBe(true);
    }
  });

  it('puts similar sentences closer than unrelated ones', async () => {
    const [cat, kitten, stocks, cancer, tumour] = await glove.embed([
      'The cat sat on the mat.',
      'A kitten was sleeping on the rug.',
      'Stock markets fell sharply after the interest rate decision.',
      'Chemotherapy shrinks the tumor in patients with breast cancer.',
      'Cancer patients responded to the new oncology drug.',
    ]);
    expect(cos(cat, kitten)).toBeGreaterThan(cos(cat, stocks));
    expect(cos(cat, kitten)).toBeGreaterThan(cos(cat, cancer));
    expect(cos(cancer, tumour)).toBeGreaterThan(cos(cancer, stocks));
    expect(cos(cancer, tumour)).toBeGreaterThan(cos(tumour, cat));
  });

  it('weights rare words above frequent ones (SIF)', async () => {
    const table = await loadGloveTable();
    const w = (word: string) => table.weights[table.row(word)];
    expect(w('the')).toBeLessThan(0.01);
    expect(w('mitochondria')).toBeGreaterThan(0.9);
    // so "the" barely moves a content word's vector
    const [protein, theProtein] = await glove.embed(['protein', 'the the the protein']);
    expect(cos(protein, theProtein)).toBeGreaterThan(0.95);
  });

  it('honours an already-aborted signal', async () => {
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    await expect(glove.embed(['a'], ac.signal)).rejects.toThrow('stop');
  });

  it('is what createEmbedder builds for the glove provider, sharing the table', async () => {
    const started = performance.now();
    const e = await createEmbedder({ provider: 'glove' });
    expect(performance.now() - started).toBeLessThan(100); // cached per process
    expect(e.id).toBe(glove.id);
  });

  it('rejects an unknown provider with a non-retryable error', async () => {
    await expect(createEmbedder({ provider: 'nope' } as never)).rejects.toMatchObject({ retryable: false, message: expect.stringContaining('"nope"') });
  });
});

describe('the packed copy of the table', () => {
  // A table in short: its size, a few words, a hash of its vectors.
  const contentOf = (t: GloveTable) => ({ size: t.size, words: [0, 1, 2, 1000, 99_999, t.size - 1].map((r) => t.word(r)), vectors: createHash('sha256').update(t.vectors).digest('hex') });
  // Never truncated in place: other test processes map the same file, and a mapped page cut off its file faults.
  const replaceWith = (path: string, bytes: Uint8Array) => {
    writeFileSync(`${path}.test.tmp`, bytes);
    renameSync(`${path}.test.tmp`, path);
  };

  it('is what a start reads, and a torn or damaged one is not trusted: the package is parsed and packed again', async () => {
    const first = await readGloveTable();
    const expected = contentOf(first.table);
    expect(expected.size).toBe(341_479);
    expect(first.table.row(expected.words[3])).toBe(1000);
    expect(first.table.row('qzxvbnmw')).toBe(-1);
    const full = readFileSync(first.packed);
    expect(contentOf((await readGloveTable()).table)).toEqual(expected); // from the packed copy
    const damaged = [
      full.subarray(0, Math.floor(full.length / 2)), // torn
      Buffer.concat([full, Buffer.alloc(8)]), // longer than its header says
      Buffer.from(full).fill(0, 0, 4), // another format
    ];
    for (const bytes of damaged) {
      replaceWith(first.packed, bytes);
      expect(contentOf((await readGloveTable()).table)).toEqual(expected);
      expect(readFileSync(first.packed).equals(full)).toBe(true); // packed again
    }
  }, 300_000);

  it('never hangs or reads outside the table on a lookup, whatever its slots hold', async () => {
    const bytes = new Uint8Array(readFileSync((await readGloveTable()).packed));
    // The header's slot bits and character count place the slots: just before the words, which end the file.
    const [slotBits, chars] = new Uint32Array(bytes.buffer, 12, 2);
    const slotsEnd = bytes.length - Math.ceil((chars * 2) / 8) * 8;
    // Rows past the table, then no empty slot left.
    for (const fill of [0x7f, 0x00]) {
      const table = GloveTable.open(bytes.fill(fill, slotsEnd - 2 ** slotBits * 16, slotsEnd))!;
      expect(table.size).toBe(341_479);
      for (const word of ['the', 'mitochondria', 'qzxvbnmw', '']) expect(table.row(word)).toBeLessThan(table.size);
    }
  });

  it('embeds the same whether mapped (an API process) or read whole with a map of frequent words (a worker)', async () => {
    const texts = ['The T-cell response to IL-6 in mitochondria.', 'Café naïve ÉCOLE well-known', ''];
    const bulk = await createGloveEmbedder({ bulk: true });
    expect((await bulk.embed(texts)).map((v) => [...v])).toEqual((await glove.embed(texts)).map((v) => [...v]));
  });
});
