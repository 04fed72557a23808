import { beforeAll, describe, expect, it } from 'vitest';
import { truncateSync, statSync } from 'node:fs';
import { createGloveEmbedder, type GloveEmbedder, loadGloveTable, readGloveTable, tokenize } from '../../shared/llm/adapters/glove-embedder.js';
import { createEmbedder } from '../../shared/llm/create-embedder.js';

// Loads the real 341k-word table (~1.5-2 s, ~140 MB), once for the whole file.
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
    const w = (word: string) => table.weights[table.index.get(word)!];
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
  it('is what a start reads, and a torn one is not trusted: the package is parsed and packed again', async () => {
    const first = await readGloveTable();
    const full = statSync(first.packed).size;
    const again = await readGloveTable(); // from the packed copy
    expect(again.words).toEqual(first.words);
    expect(Buffer.from(again.vectors.buffer).equals(Buffer.from(first.vectors.buffer))).toBe(true);
    truncateSync(first.packed, Math.floor(full / 2));
    const rebuilt = await readGloveTable();
    expect(rebuilt.words).toEqual(first.words);
    expect(Buffer.from(rebuilt.vectors.buffer).equals(Buffer.from(first.vectors.buffer))).toBe(true);
    expect(statSync(first.packed).size).toBe(full);
  }, 120_000);
});
