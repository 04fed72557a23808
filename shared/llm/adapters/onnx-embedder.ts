import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { type Embedder, EmbedderError, l2NormaliseInPlace } from '../ports/embedder.js';

/**
 * A sentence-embedding model exported to ONNX (the layout transformers.js and
 * HuggingFace Optimum produce: config.json, tokenizer.json, onnx/model.onnx),
 * run on CPU through @huggingface/transformers with mean pooling.
 * Never touches the network: the folder must already be on disk.
 */
export interface OnnxEmbedderOptions {
  /** Folder holding config.json, tokenizer*.json and onnx/model.onnx (or model_quantized.onnx). */
  modelPath: string;
  /** Checked against the model's output when given; probed otherwise. */
  dimensions?: number;
  /** Texts per forward pass (default 16); padding makes huge batches wasteful. */
  maxBatch?: number;
}

const PACKAGE = '@huggingface/transformers';
const INSTALL_HINT =
  `run \`npm install ${PACKAGE}\` (put \`onnxruntime-node-install=skip\` in .npmrc on offline machines; ` +
  `the CPU runtime ships inside onnxruntime-node)`;

// Only the slice of the transformers.js API used here, so this file typechecks
// even where the optional package is not installed.
interface TensorLike { dims: number[]; data: ArrayLike<number> }
type Extractor = ((texts: string[], opts: { pooling: 'mean'; normalize: boolean }) => Promise<TensorLike>) & {
  dispose?(): Promise<void>;
};
interface TransformersModule {
  env: { allowRemoteModels: boolean; allowLocalModels: boolean; localModelPath: string; useFSCache: boolean };
  pipeline(task: 'feature-extraction', model: string, opts: { dtype: string; device: string }): Promise<Extractor>;
}

async function importTransformers(): Promise<TransformersModule> {
  const specifier = PACKAGE; // a variable keeps tsc from requiring the package at build time
  try {
    return (await import(specifier)) as TransformersModule;
  } catch (cause) {
    throw new EmbedderError(`the onnx embedder needs the optional package ${PACKAGE}, which failed to load: ${INSTALL_HINT}`, false, { cause });
  }
}

/** Which weight file to load: full precision if present, else the int8 export. */
async function findModelFile(dir: string): Promise<{ dtype: string; file: string }> {
  const problem = (what: string) =>
    new EmbedderError(`ONNX model folder ${dir} ${what}; expected config.json, tokenizer.json, tokenizer_config.json and onnx/model.onnx ` +
      `(e.g. an "onnx" export of a sentence-transformers model copied there)`, false);
  try {
    if (!(await stat(dir)).isDirectory()) throw problem('is not a directory');
  } catch (err) {
    throw err instanceof EmbedderError ? err : problem('does not exist or is unreadable');
  }
  const files = new Set(await readdir(dir));
  // transformers.js silently skips the tokenizer when tokenizer_config.json is absent.
  const missing = ['config.json', 'tokenizer.json', 'tokenizer_config.json'].filter((f) => !files.has(f));
  if (missing.length) throw problem(`has no ${missing.join(' or ')}`);
  const onnx = new Set(await readdir(join(dir, 'onnx')).catch(() => [] as string[]));
  if (onnx.has('model.onnx')) return { dtype: 'fp32', file: join(dir, 'onnx', 'model.onnx') };
  if (onnx.has('model_quantized.onnx')) return { dtype: 'q8', file: join(dir, 'onnx', 'model_quantized.onnx') };
  throw problem('has no onnx/model.onnx or onnx/model_quantized.onnx');
}

// transformers.js reads env.localModelPath while a pipeline loads, and env is
// process-global, so loads are serialised to keep two folders from crossing.
let loading: Promise<unknown> = Promise.resolve();

export class OnnxEmbedder implements Embedder {
  constructor(
    readonly id: string,
    readonly dimensions: number,
    private readonly extractor: Extractor,
    private readonly maxBatch: number,
  ) {}

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = new Array(texts.length);
    // A tokenizer turns "" into [CLS][SEP], which has a vector; the contract wants zeros.
    const todo: number[] = [];
    texts.forEach((t, i) => (t.trim() === '' ? (out[i] = new Float32Array(this.dimensions)) : todo.push(i)));
    for (let start = 0; start < todo.length; start += this.maxBatch) {
      signal?.throwIfAborted();
      const slice = todo.slice(start, start + this.maxBatch);
      const rows = await this.run(slice.map((i) => texts[i]));
      slice.forEach((i, k) => (out[i] = rows[k]));
    }
    return out;
  }

  /** One forward pass; rows are not size-checked (the probe uses this to learn the size). */
  async run(texts: string[]): Promise<Float32Array[]> {
    let tensor: TensorLike;
    try {
      tensor = await this.extractor(texts, { pooling: 'mean', normalize: true });
    } catch (cause) {
      throw new EmbedderError(`ONNX model ${this.id} failed on a batch of ${texts.length}: ${(cause as Error)?.message ?? cause}`, false, { cause });
    }
    const [n, dim] = tensor.dims;
    if (n !== texts.length || tensor.dims.length !== 2) {
      throw new EmbedderError(`ONNX model ${this.id} returned shape [${tensor.dims}] for ${texts.length} texts`, false);
    }
    if (!Number.isNaN(this.dimensions) && dim !== this.dimensions) {
      throw new EmbedderError(`ONNX model ${this.id} returns ${dim}-d vectors but dimensions is configured as ${this.dimensions}`, false);
    }
    const data = Float32Array.from(tensor.data);
    return Array.from({ length: n }, (_, r) => l2NormaliseInPlace(data.slice(r * dim, (r + 1) * dim)));
  }

  async close(): Promise<void> {
    await this.extractor.dispose?.();
  }
}

export async function createOnnxEmbedder(opts: OnnxEmbedderOptions): Promise<OnnxEmbedder> {
  const dir = resolve(opts.modelPath);
  const { dtype, file } = await findModelFile(dir);
  const t = await importTransformers();
  // Identity = folder name + a fingerprint of config and weights, so swapping
  // the model in place still triggers re-embedding while moving it does not.
  const config = await readFile(join(dir, 'config.json'));
  const fingerprint = createHash('sha256').update(config).update(String((await stat(file)).size)).digest('hex').slice(0, 12);
  const id = `onnx:${basename(dir)}#${fingerprint}${dtype === 'fp32' ? '' : `-${dtype}`}`;

  const load = loading.then(async () => {
    t.env.allowRemoteModels = false;
    t.env.allowLocalModels = true;
    t.env.useFSCache = false;
    t.env.localModelPath = dirname(dir);
    // transformers.js resolves a valid hub-style id under localModelPath and
    // uses anything else (e.g. a folder name with spaces) as a literal path.
    const folder = basename(dir);
    const name = /^\w(?:[\w.-]{0,94}\w)?$/.test(folder) && !/\.\.|--|\.git$|\.ipynb$/.test(folder) ? folder : dir;
    return t.pipeline('feature-extraction', name, { dtype, device: 'cpu' });
  });
  loading = load.catch(() => undefined);
  let extractor: Extractor;
  try {
    extractor = await load;
  } catch (cause) {
    throw new EmbedderError(`could not load the ONNX model in ${dir}: ${(cause as Error)?.message ?? cause}`, false, { cause });
  }

  const maxBatch = Math.max(1, opts.maxBatch ?? 16);
  const [probe] = await new OnnxEmbedder(id, NaN, extractor, maxBatch).run(['dimension probe']);
  if (opts.dimensions !== undefined && opts.dimensions !== probe.length) {
    await extractor.dispose?.();
    throw new EmbedderError(`ONNX model in ${dir} returns ${probe.length}-d vectors but dimensions is configured as ${opts.dimensions}`, false);
  }
  return new OnnxEmbedder(id, probe.length, extractor, maxBatch);
}
