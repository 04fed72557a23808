import { createGloveEmbedder } from './adapters/glove-embedder.js';
import { createOnnxEmbedder } from './adapters/onnx-embedder.js';
import { createOpenAiEmbedder, type OpenAiEmbedderOptions } from './adapters/openai-embedder.js';
import { type Embedder, EmbedderError } from './ports/embedder.js';

export type { Embedder } from './ports/embedder.js';
export { EmbedderError } from './ports/embedder.js';
export { createBatchingEmbedder, type BatchingOptions } from './embed-batcher.js';

/**
 * Which embedding provider a process uses. `glove` needs nothing but the npm
 * package and is the default; `openai` talks to any OpenAI-compatible server;
 * `onnx` runs a local model folder through the optional transformers.js.
 */
export type EmbedderConfig =
  | { provider: 'glove' }
  | ({ provider: 'openai' } & OpenAiEmbedderOptions)
  | { provider: 'onnx'; modelPath: string; dimensions?: number };

/**
 * Builds the configured provider. Async because every provider has startup
 * work: GloVe maps its table (milliseconds; ~2 s the first time after an install), the HTTP provider
 * may probe the vector size, and ONNX loads and probes the model. Failing here
 * (not on the first document) surfaces bad configuration at boot. `bulk`: the process embeds
 * documents by the thousand (a worker), not one query at a time (an API process).
 */
export async function createEmbedder(config: EmbedderConfig, options: { bulk?: boolean } = {}): Promise<Embedder> {
  switch (config.provider) {
    case 'glove':
      return createGloveEmbedder(options);
    case 'openai': {
      const { provider: _provider, ...options } = config;
      return createOpenAiEmbedder(options);
    }
    case 'onnx':
      return createOnnxEmbedder({ modelPath: config.modelPath, dimensions: config.dimensions });
    default: {
      // Config can arrive from untyped sources (env, JSON files) despite the type.
      const provider = (config as { provider?: unknown }).provider;
      throw new EmbedderError(`unknown embeddings provider ${JSON.stringify(provider)}; expected "glove", "openai" or "onnx"`, false);
    }
  }
}
