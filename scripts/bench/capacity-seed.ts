import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { ConfigurationService } from '../../api/services/configuration-service.js';
import { createConfigurationSchema } from '../../api/schemas/configuration-schemas.js';
import { loadConfig } from '../../shared/config/config.js';
import { encodePage } from '../../shared/documents/page-document.js';
import { PUSH_FIELDS } from '../../shared/indexes/index-schema.js';
import type { PipelineQueues } from '../../shared/jobs/pipeline-queues.js';
import { newJobId } from '../../shared/jobs/job-id.js';
import { createEmbedder } from '../../shared/llm/create-embedder.js';
import { createStorage } from '../../shared/storage/create-storage.js';
import { indexJob } from '../../workers/jobs/index-job.js';
import type { WorkerContext } from '../../workers/jobs/worker-context.js';
import { CAPACITY_CORPUS_VERSION, CAPACITY_VOCABULARY, capacityDoc, capacityVocabulary } from './capacity-corpus.js';
import { round } from './stats.js';

/**
 * The data folders of `npm run bench:capacity`: one embedded (SQLite) data folder per size, seeded
 * once and kept under the cache folder for the next runs (a million sections take minutes to
 * seed and gigabytes of disk). Seeding goes through the stores and the pipeline code the workers
 * run (documents written, claimed, sectioned, embedded by the service's default embedder,
 * published with their change-feed entries, marked indexed), in this process and in large
 * batches: no HTTP, no queue, no worker process.
 */

export const CAPACITY_INDEX = 'bench-capacity';
/** Documents written and indexed per batch: one write transaction and one publish each. */
const SEED_BATCH = 2000;
const SEED_FILE = 'seed.json';

export interface SeedInfo {
  version: number;
  sections: number;
  vocabulary: typeof CAPACITY_VOCABULARY;
  index: string;
  /** The search interface's configuration over the index (default ranking settings). */
  uiUid: string;
  embedder: string;
  seedSeconds: number;
  /** Size of quarry.db + search.db (and their WAL files) right after seeding. */
  storeBytes: number;
  createdAt: string;
}

export interface SeededFolder {
  dataDir: string;
  info: SeedInfo;
  /** False: seeded in this run (info.seedSeconds is this run's). */
  reused: boolean;
}

/** The folder for `sections` documents under `cacheDir`: its seed.json says it is complete. */
export async function seededFolder(cacheDir: string, sections: number, say: (m: string) => void): Promise<SeededFolder> {
  const dataDir = join(cacheDir, `v${CAPACITY_CORPUS_VERSION}-${sections}`);
  const infoFile = join(dataDir, SEED_FILE);
  if (existsSync(infoFile)) {
    const info = JSON.parse(readFileSync(infoFile, 'utf8')) as SeedInfo;
    if (info.version === CAPACITY_CORPUS_VERSION && info.sections === sections) return { dataDir, info, reused: true };
  }
  // No seed.json: a seed that did not finish (or an older layout). Start over.
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const info: SeedInfo = { ...(await seed(dataDir, sections, say)), storeBytes: storeBytes(dataDir) };
  writeFileSync(infoFile, `${JSON.stringify(info, null, 2)}\n`);
  return { dataDir, info, reused: false };
}

/** quarry.db and search.db with their WAL files: documents, sections, vectors and the change feed. */
function storeBytes(dataDir: string): number {
  return readdirSync(dataDir).filter((f) => /^(quarry|search)\.db/.test(f)).reduce((sum, f) => sum + statSync(join(dataDir, f)).size, 0);
}

async function seed(dataDir: string, sections: number, say: (m: string) => void): Promise<Omit<SeedInfo, 'storeBytes'>> {
  const t0 = performance.now();
  // A crash mid-seed leaves no seed.json, so the folder is seeded again: durability per commit buys nothing here.
  const config = loadConfig({ QUARRY_DATA_DIR: dataDir, QUARRY_SQLITE_SYNCHRONOUS: 'normal', QUARRY_MIN_FREE_DISK_MB: '0', QUARRY_LOG_LEVEL: 'warn' });
  const storage = await createStorage(config.storage);
  try {
    const { index } = await storage.indexes.upsert(CAPACITY_INDEX, 'en', PUSH_FIELDS);
    const ui = await new ConfigurationService(storage).create(createConfigurationSchema.parse({
      variant: 'ui', name: 'bench:capacity', indexes: [CAPACITY_INDEX],
    }));
    const embedder = await createEmbedder(config.embeddings, { bulk: true });
    // The embedder runs in this process, so index jobs publish themselves and never hand a batch to the embed queue.
    const ctx: WorkerContext = { storage, embedder, queues: {} as PipelineQueues, log: pino({ level: 'warn' }), batchSize: SEED_BATCH };
    const vocab = capacityVocabulary();
    let lastSay = performance.now();
    for (let from = 0; from < sections; from += SEED_BATCH) {
      const job = newJobId('seed', index.id);
      const writes = [];
      for (let i = from; i < Math.min(sections, from + SEED_BATCH); i++) {
        const d = capacityDoc(vocab, i);
        writes.push({ indexId: index.id, uid: d.uid, job, ...encodePage(d.uid, { title: d.title, content: d.content }, undefined) });
      }
      await storage.documents.applyWrites(writes);
      const r = await indexJob(job, { indexId: index.id }, ctx);
      if (r.published !== writes.length) throw new Error(`seeding ${dataDir}: batch at ${from} published ${r.published ?? 0} of ${writes.length} (${JSON.stringify(r)})`);
      const done = from + writes.length;
      if (performance.now() - lastSay > 30_000) {
        lastSay = performance.now();
        const rate = done / ((lastSay - t0) / 1000);
        say(`  seeded ${done.toLocaleString('en')} of ${sections.toLocaleString('en')} sections (${Math.round(rate)}/s, about ${Math.round((sections - done) / rate)} s left)`);
      }
    }
    return {
      version: CAPACITY_CORPUS_VERSION, sections, vocabulary: CAPACITY_VOCABULARY, index: CAPACITY_INDEX, uiUid: ui.uid, embedder: embedder.id,
      seedSeconds: round((performance.now() - t0) / 1000, 1), createdAt: new Date().toISOString(),
    };
  } finally {
    await storage.close();
  }
}
