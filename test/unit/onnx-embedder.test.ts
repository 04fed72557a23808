import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createOnnxEmbedder } from '../../shared/llm/adapters/onnx-embedder.js';
import { EmbedderError } from '../../shared/llm/ports/embedder.js';

// No model can be downloaded here and no npm package ships a small sentence
// model, so the test writes its own: a BERT-layout folder whose ONNX graph is a
// single Gather (token id -> 4-d vector) behind a real WordPiece tokenizer.
// That exercises the real loading path (local-only env, tokenizer, onnxruntime,
// mean pooling, normalisation) without any pretrained weights.

const VOCAB = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', 'cat', 'kitten', 'sat', 'slept', 'car', 'engine', 'repair'];
// Special tokens map to zero so pooling reflects the words; "cat"/"kitten"
// and "sat"/"slept" are near-synonyms, "car"/"engine"/"repair" another topic.
const TABLE = [
  [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0],
  [1, 0.1, 0, 0], [0.9, 0.2, 0, 0], [0.1, 1, 0, 0], [0.2, 0.9, 0.1, 0],
  [0, 0, 1, 0.1], [0, 0.1, 0.9, 0.3], [0, 0, 0.3, 1],
];

// --- minimal protobuf writer, enough for an ONNX ModelProto ---
const varint = (n: number) => { const b: number[] = []; do { b.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0)); n = Math.floor(n / 128); } while (n > 0); return b; };
const field = (no: number, v: number | string | Uint8Array | number[]): number[] => {
  if (typeof v === 'number') return [...varint(no << 3), ...varint(v)];
  const bytes = typeof v === 'string' ? [...Buffer.from(v)] : [...v];
  return [...varint((no << 3) | 2), ...varint(bytes.length), ...bytes];
};
const tensorType = (elemType: number, dims: (string | number)[]) =>
  field(1, [...field(1, elemType), ...field(2, dims.flatMap((d) => field(1, typeof d === 'number' ? field(1, d) : field(2, d))))]);
const valueInfo = (name: string, elemType: number, dims: (string | number)[]) => [...field(1, name), ...field(2, tensorType(elemType, dims))];

function tinyModel(): Uint8Array {
  const FLOAT = 1, INT64 = 7;
  const raw = new Uint8Array(new Float32Array(TABLE.flat()).buffer);
  const initializer = [...field(1, VOCAB.length), ...field(1, 4), ...field(2, FLOAT), ...field(8, 'embeddings'), ...field(9, raw)];
  const node = [...field(1, 'embeddings'), ...field(1, 'input_ids'), ...field(2, 'last_hidden_state'), ...field(3, 'lookup'), ...field(4, 'Gather')];
  const graph = [
    ...field(1, node), ...field(2, 'tiny'), ...field(5, initializer),
    ...field(11, valueInfo('input_ids', INT64, ['batch', 'seq'])),
    ...field(11, valueInfo('attention_mask', INT64, ['batch', 'seq'])),
    ...field(12, valueInfo('last_hidden_state', FLOAT, ['batch', 'seq', 4])),
  ];
  return new Uint8Array([...field(1, 8), ...field(2, 'quarry-test'), ...field(7, graph), ...field(8, field(2, 13))]);
}

const special = (content: string, id: number) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
const tokenizerJson = {
  version: '1.0', truncation: null, padding: null,
  added_tokens: VOCAB.slice(0, 4).map(special),
  normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
  pre_tokenizer: { type: 'BertPreTokenizer' },
  post_processor: { type: 'BertProcessing', sep: ['[SEP]', 3], cls: ['[CLS]', 2] },
  decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
  model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: Object.fromEntries(VOCAB.map((w, i) => [w, i])) },
};
const tokenizerConfig = { tokenizer_class: 'BertTokenizer', model_max_length: 32, do_lower_case: true, pad_token: '[PAD]', unk_token: '[UNK]', cls_token: '[CLS]', sep_token: '[SEP]' };

let root: string;
let modelDir: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'quarry-onnx-'));
  modelDir = join(root, 'tiny-bert');
  await mkdir(join(modelDir, 'onnx'), { recursive: true });
  await writeFile(join(modelDir, 'config.json'), JSON.stringify({ model_type: 'bert', architectures: ['BertModel'], hidden_size: 4, vocab_size: VOCAB.length }));
  await writeFile(join(modelDir, 'tokenizer.json'), JSON.stringify(tokenizerJson));
  await writeFile(join(modelDir, 'tokenizer_config.json'), JSON.stringify(tokenizerConfig));
  await writeFile(join(modelDir, 'onnx', 'model.onnx'), tinyModel());
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

async function rejection(p: Promise<unknown>): Promise<EmbedderError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(EmbedderError);
  return err as EmbedderError;
}

describe('ONNX embedder', () => {
  it('fails clearly, without retry, when the folder does not exist', async () => {
    const missing = join(root, 'no-such-model');
    const err = await rejection(createOnnxEmbedder({ modelPath: missing }));
    expect(err.retryable).toBe(false);
    expect(err.message).toContain(missing);
    expect(err.message).toMatch(/does not exist/);
  });

  it('names what is missing from an incomplete folder', async () => {
    const partial = join(root, 'partial');
    await mkdir(partial, { recursive: true });
    await writeFile(join(partial, 'config.json'), '{}');
    const err = await rejection(createOnnxEmbedder({ modelPath: partial }));
    expect(err.message).toMatch(/has no tokenizer\.json or tokenizer_config\.json/);
  });

  it('loads a local model, probes dimensions, and embeds meaningfully', async () => {
    const e = await createOnnxEmbedder({ modelPath: modelDir, maxBatch: 2 });
    try {
      expect(e.dimensions).toBe(4);
      expect(e.id).toMatch(/^onnx:tiny-bert#[0-9a-f]{12}$/);
      const [a, b, c, empty, unknown] = await e.embed(['The cat sat', 'kitten slept', 'car engine repair', '', 'zzz qqq']);
      for (const v of [a, b, c]) expect(Math.hypot(...v)).toBeCloseTo(1, 5);
      expect(cos(a, b)).toBeGreaterThan(0.9);
      expect(cos(a, c)).toBeLessThan(0.3);
      expect([...empty]).toEqual([0, 0, 0, 0]);
      expect([...unknown]).toEqual([0, 0, 0, 0]); // all [UNK]: zero rows, zero vector, no NaN
      const again = await e.embed(['The cat sat']);
      expect([...again[0]]).toEqual([...a]);
    } finally {
      await e.close();
    }
  });

  it('rejects a configured size the model does not produce', async () => {
    const err = await rejection(createOnnxEmbedder({ modelPath: modelDir, dimensions: 384 }));
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/4-d vectors but dimensions is configured as 384/);
  });

  it('explains how to install transformers.js when it cannot be imported', async () => {
    vi.resetModules();
    vi.doMock('@huggingface/transformers', () => {
      throw new Error("Cannot find package '@huggingface/transformers'");
    });
    try {
      const fresh = await import('../../shared/llm/adapters/onnx-embedder.js');
      const err = await fresh.createOnnxEmbedder({ modelPath: modelDir }).then(() => undefined, (e: unknown) => e as EmbedderError);
      expect(err?.name).toBe('EmbedderError'); // a fresh module graph, so not the same class object
      expect(err?.retryable).toBe(false);
      expect(err?.message).toMatch(/npm install @huggingface\/transformers/);
    } finally {
      vi.doUnmock('@huggingface/transformers');
      vi.resetModules();
    }
  });
});
