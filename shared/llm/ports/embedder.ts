/**
 * Port for turning text into dense vectors. Adapters live in ../adapters; the
 * index records `id` so that a model or settings change can be detected and
 * trigger re-embedding instead of silently mixing incompatible vector spaces.
 */
export interface Embedder {
  /** Stable identity of the model + settings, recorded per index; a change means re-embedding. e.g. "glove-6b-100d-sif@1" */
  readonly id: string;
  readonly dimensions: number;
  /**
   * True when embedding is a network call (an HTTP provider): the pipeline then gives it a queue of
   * its own, where batches wait on the provider without holding up sectioning and publishing.
   */
  readonly remote?: boolean;
  /**
   * True when a short text is embedded on the calling thread before `embed` returns (GloVe): a search then
   * has its query vector before it scores its keyword leg, and can scan for vectors off the event loop meanwhile.
   */
  readonly inline?: boolean;
  /** One L2-normalised vector per input text, same order. Empty or unknown-word text gives a zero vector (all zeros), never NaN. */
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
  close?(): Promise<void>;
}

/**
 * `retryable` separates a flaky dependency (timeout, 429, 5xx, connection
 * refused: worth retrying later, e.g. by re-queueing the job) from a
 * configuration problem (bad URL, 4xx, missing model) that retrying cannot fix.
 */
export class EmbedderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EmbedderError';
  }
}

/** L2-normalise in place; an all-zero vector stays all zeros rather than becoming NaN. */
export function l2NormaliseInPlace(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i] * v[i];
  // NaN/Infinity from a misbehaving provider would poison every cosine score.
  if (!(sum > 0) || !Number.isFinite(sum)) return v.fill(0);
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i] *= inv;
  return v;
}
