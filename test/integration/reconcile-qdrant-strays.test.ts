// The reconciler's sweep of Qdrant in the scale-out mode: points of versions the section store does not
// vouch for are removed from the dense collection and from the keyword leg's collection alike.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { loadConfig } from '../../shared/config/config.js';
import { createLogger } from '../../shared/logging/create-logger.js';
import type { PipelineQueues } from '../../shared/jobs/pipeline-queues.js';
import { createStorage, type Storage } from '../../shared/storage/create-storage.js';
import { keywordKey } from '../../shared/storage/ports/keyword-index.js';
import { Reconciler } from '../../workers/reconciler.js';
import { freshSchema } from '../helpers/postgres.js';
import { startQdrantStandIn, type QdrantStandIn } from '../helpers/qdrant-stand-in.js';

describe('the reconciler with vectors and the keyword leg in Qdrant', () => {
  let qdrant: QdrantStandIn;
  let storage: Storage;
  let drop: () => Promise<void>;
  let dataDir: string;

  beforeAll(async () => {
    qdrant = await startQdrantStandIn();
    const url = inject('databaseUrl');
    const fresh = await freshSchema(url);
    drop = fresh.drop;
    dataDir = mkdtempSync(join(tmpdir(), 'quarry-strays-'));
    const config = loadConfig({
      QUARRY_MASTER_KEY: 'qs_test-master-key-0123456789', QUARRY_DATA_DIR: dataDir, QUARRY_STORAGE: 'postgres', DATABASE_URL: url,
      QUARRY_DATABASE_SCHEMA: fresh.schema, QDRANT_URL: qdrant.url, QUARRY_KEYWORD_INDEX: 'qdrant',
    });
    storage = await createStorage(config.storage);
  });

  afterAll(async () => {
    await storage?.close();
    await drop?.();
    await qdrant?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('removes older and abandoned newer versions from both collections, and keeps the live one and one still publishing', async () => {
    const { index } = await storage.indexes.upsert('strays', 'en', { title: { type: 'text' }, content: { type: 'html' } });
    const section = (uid: string, version: number, text: string) => ({
      uid, version,
      sections: [{ ord: 0, field: 'content', title: uid, anchor: null, text, hash: `${uid}:${version}`, vector: Float32Array.of(1, version, 0.5) }],
    });
    // Live: a@2, b@1. Strays written behind the section store's back: a@1 (older), b@7 (newer, nothing publishing it).
    await storage.documents.applyWrites(['a', 'b'].map((uid) => ({ indexId: index.id, uid, fields: JSON.stringify({ title: uid, content: '<p>x</p>' }), hash: uid, job: 'j' })));
    await storage.sections.publish(index.id, [section('a', 2, 'alpha two'), section('b', 1, 'beta one')], 'model');
    // c is pending at the version its points carry: a publish may be writing them right now.
    await storage.documents.applyWrites([{ indexId: index.id, uid: 'c', fields: JSON.stringify({ title: 'c', content: '<p>z</p>' }), hash: 'c', job: 'j' }]);
    const c = (await storage.documents.get(index.id, 'c'))!;
    expect(c.status).toBe('pending');
    const stray = [section('a', 1, 'alpha one'), section('b', 7, 'beta seven'), section('c', c.version, 'gamma')];
    await storage.vectors!.upsert(index.uid, stray.map((s) => ({ uid: s.uid, version: s.version, ord: 0, vector: s.sections[0].vector })));
    await storage.keywords!.upsert(keywordKey(index), index.fields, stray.map((s) => ({ uid: s.uid, version: s.version, ord: 0, terms: { content: s.sections[0].text.split(' ') } })));
    const listed = async () => ({
      vectors: await storage.vectors!.versions(index.uid, null, 100),
      keywords: await storage.keywords!.versions(keywordKey(index), null, 100),
    });
    const both = [{ uid: 'a', version: 1 }, { uid: 'a', version: 2 }, { uid: 'b', version: 1 }, { uid: 'b', version: 7 }, { uid: 'c', version: c.version }];
    expect(await listed()).toEqual({ vectors: both, keywords: both });

    const reconciler = new Reconciler(storage, {} as PipelineQueues, {} as Redis, createLogger('silent', 'test'), { prefix: 'unused', batchSize: 16, graceMs: 0 });
    expect(await reconciler.removeStrayPoints()).toBe(4);
    const live = [{ uid: 'a', version: 2 }, { uid: 'b', version: 1 }, { uid: 'c', version: c.version }];
    expect(await listed()).toEqual({ vectors: live, keywords: live });
    expect(await reconciler.removeStrayPoints()).toBe(0);
    expect(qdrant.violations).toEqual([]);
  });
});
