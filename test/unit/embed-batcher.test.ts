import { describe, expect, it } from 'vitest';
import { createBatchingEmbedder } from '../../shared/llm/embed-batcher.js';
import { type Embedder, EmbedderError } from '../../shared/llm/ports/embedder.js';

// A fake provider that records each call and encodes the text in the vector,
// so tests can check both batching and that every caller got its own slice.
function fakeEmbedder(opts: { failWhen?: (texts: string[]) => boolean; delayMs?: number } = {}) {
  const calls: string[][] = [];
  let closed = false;
  const inner: Embedder = {
    id: 'fake@1',
    dimensions: 2,
    async embed(texts) {
      calls.push([...texts]);
      if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
      if (opts.failWhen?.(texts)) throw new EmbedderError('provider down', true);
      return texts.map((t) => Float32Array.from([t.length, t.charCodeAt(0) || 0]));
    },
    async close() {
      closed = true;
    },
  };
  return { inner, calls, isClosed: () => closed };
}

const decode = (vs: Float32Array[]) => vs.map((v) => `${v[0]}:${String.fromCharCode(v[1])}`);

describe('createBatchingEmbedder', () => {
  it('forwards id and dimensions', () => {
    const b = createBatchingEmbedder(fakeEmbedder().inner);
    expect(b.id).toBe('fake@1');
    expect(b.dimensions).toBe(2);
  });

  it('coalesces calls made in the same tick into one provider call', async () => {
    const { inner, calls } = fakeEmbedder();
    const b = createBatchingEmbedder(inner, { maxBatch: 64 });
    const [r1, r2, r3] = await Promise.all([b.embed(['a']), b.embed(['bb', 'ccc']), b.embed(['dddd'])]);
    expect(calls).toEqual([['a', 'bb', 'ccc', 'dddd']]);
    expect(decode(r1)).toEqual(['1:a']);
    expect(decode(r2)).toEqual(['2:b', '3:c']);
    expect(decode(r3)).toEqual(['4:d']);
  });

  it('waits up to maxWaitMs for later callers', async () => {
    const { inner, calls } = fakeEmbedder();
    const b = createBatchingEmbedder(inner, { maxWaitMs: 30 });
    const first = b.embed(['a']);
    await new Promise((r) => setTimeout(r, 5));
    const second = b.embed(['b']);
    await Promise.all([first, second]);
    expect(calls).toEqual([['a', 'b']]);
  });

  it('splits into provider calls of at most maxBatch texts', async () => {
    const { inner, calls } = fakeEmbedder();
    const b = createBatchingEmbedder(inner, { maxBatch: 3 });
    const texts = ['a', 'bb', 'ccc', 'dddd', 'eeeee', 'ffffff', 'g'];
    const [all, more] = await Promise.all([b.embed(texts), b.embed(['hh'])]);
    expect(calls.every((c) => c.length <= 3)).toBe(true);
    expect(calls.flat().sort()).toEqual([...texts, 'hh'].sort());
    expect(decode(all)).toEqual(['1:a', '2:b', '3:c', '4:d', '5:e', '6:f', '1:g']);
    expect(decode(more)).toEqual(['2:h']);
  });

  it('embeds identical texts once and gives each caller an independent copy', async () => {
    const { inner, calls } = fakeEmbedder();
    const b = createBatchingEmbedder(inner);
    const [r1, r2] = await Promise.all([b.embed(['same', 'x', 'same']), b.embed(['same'])]);
    expect(calls).toEqual([['same', 'x']]);
    expect(decode(r1)).toEqual(['4:s', '1:x', '4:s']);
    expect(decode(r2)).toEqual(['4:s']);
    r1[0][0] = 99;
    expect(r1[2][0]).toBe(4);
    expect(r2[0][0]).toBe(4);
  });

  it('rejects every caller of a failed batch, and only those', async () => {
    const { inner } = fakeEmbedder({ failWhen: (texts) => texts.includes('bad') });
    const b = createBatchingEmbedder(inner, { maxBatch: 2 });
    // Distinct texts a,bad | c,d form two provider calls; only the first fails.
    const results = await Promise.allSettled([b.embed(['a']), b.embed(['bad']), b.embed(['c', 'd'])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    const err = (results[0] as PromiseRejectedResult).reason as EmbedderError;
    expect(err).toBeInstanceOf(EmbedderError);
    expect(err.retryable).toBe(true);
    expect(await b.embed(['a'])).toHaveLength(1); // later batches are unaffected
  });

  it('lets an aborted caller stop waiting without hurting the others', async () => {
    const { inner } = fakeEmbedder({ delayMs: 20 });
    const b = createBatchingEmbedder(inner);
    const ac = new AbortController();
    const aborted = b.embed(['a'], ac.signal);
    const other = b.embed(['b']);
    ac.abort(new Error('client went away'));
    await expect(aborted).rejects.toThrow('client went away');
    expect(decode(await other)).toEqual(['1:b']);
    await expect(b.embed(['c'], ac.signal)).rejects.toThrow('client went away');
  });

  it('returns [] for no texts without calling the provider', async () => {
    const { inner, calls } = fakeEmbedder();
    expect(await createBatchingEmbedder(inner).embed([])).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('drains pending work on close and closes the provider', async () => {
    const { inner, calls, isClosed } = fakeEmbedder({ delayMs: 5 });
    const b = createBatchingEmbedder(inner, { maxWaitMs: 1000 });
    const pending = b.embed(['a']);
    await b.close!();
    expect(decode(await pending)).toEqual(['1:a']);
    expect(calls).toHaveLength(1);
    expect(isClosed()).toBe(true);
  });
});
