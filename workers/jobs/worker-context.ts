import type { Logger } from 'pino';
import type { PipelineQueues } from '../../shared/jobs/pipeline-queues.js';
import type { Embedder } from '../../shared/llm/ports/embedder.js';
import type { Storage } from '../../shared/storage/create-storage.js';

export interface WorkerContext {
  storage: Storage;
  embedder: Embedder;
  queues: PipelineQueues;
  log: Logger;
  /** Most documents an index job claims (QUARRY_PIPELINE_BATCH). */
  batchSize: number;
}
