// `npm run keywords -- recalibrate`: the keyword leg on Qdrant measures its average field lengths again over
// what PostgreSQL holds live, after a first write unlike the rest (QUARRY_KEYWORD_INDEX=qdrant).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../shared/config/config.js';
import type { PipelineQueues } from '../../shared/jobs/pipeline-queues.js';
import { createLogger } from '../../shared/logging/create-logger.js';
import { createAnalyzer } from '../../shared/search/analyzer/analyzer.js';
import { createStorage, type Storage } from '../../shared/storage/create-storage.js';
import { keywordKey } from '../../shared/storage/ports/keyword-index.js';
import { Reconciler } from '../../workers/reconciler.js';
import { freshSchema } from '../helpers/postgres.js';
import { startQdrantStandIn, type QdrantStandIn } from '../helpers/qdrant-stand-in.js';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

describe('recalibrating the keyword leg on Qdrant (npm run keywords -- recalibrate, and the reconciler)', () => {
  let qdrant: QdrantStandIn;
  let storage: Storage;
  let drop: () => Promise<void>;
  let dataDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    qdrant = await startQdrantStandIn();
    const url = inject('databaseUrl');
    const fresh = await freshSchema(url);
    drop = fresh.drop;
    dataDir = mkdtempSync(join(tmpdir(), 'quarry-recal-'));
    env = {
      QUARRY_MASTER_KEY: 'qs_test-master-key-0123456789', QUARRY_DATA_DIR: dataDir, QUARRY_STORAGE: 'postgres', DATABASE_URL: url,
      QUARRY_DATABASE_SCHEMA: fresh.schema, QDRANT_URL: qdrant.url, QUARRY_KEYWORD_INDEX: 'qdrant',
    };
    storage = await createStorage(loadConfig(env).storage);
  });

  afterAll(async () => {
    await storage?.close();
    await drop?.();
    await qdrant?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const words = ['cell', 'protein', 'cancer', 'gene', 'mouse', 'blood', 'brain', 'heart'];
  const texts = Array.from({ length: 30 }, (_, i) => Array.from({ length: 20 + i }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(' '));

  /** An index whose first write was one two-word test document, then 30 real ones. */
  async function skewedIndex(uid: string) {
    const { index } = await storage.indexes.upsert(uid, 'en', { title: { type: 'text' }, content: { type: 'html' } });
    const publish = async (docs: { uid: string; text: string }[]) => {
      await storage.documents.applyWrites(docs.map((d) => ({ indexId: index.id, uid: d.uid, fields: JSON.stringify({ title: d.uid, content: `<p>${d.text}</p>` }), hash: d.uid, job: 'j' })));
      const items = [];
      for (const d of docs) {
        const { version } = (await storage.documents.get(index.id, d.uid))!;
        items.push({ uid: d.uid, version, sections: [{ ord: 0, field: 'content', title: d.uid, anchor: null, text: d.text, hash: `${d.uid}:${version}`, vector: Float32Array.of(1, 0.5, 0.25) }] });
      }
      await storage.sections.publish(index.id, items, 'model');
    };
    await publish([{ uid: 'a-test', text: 'hello world' }]);
    await publish(texts.map((text, i) => ({ uid: `d${i}`, text })));
    return index;
  }
  const averageOf = (uid: string, createdAt: number) =>
    (qdrant.collections.get(`quarry_kw_${keywordKey({ uid, createdAt })}`)!.metadata as { quarry: { avgLength: Record<string, number>; calibratedOn: number } }).quarry;
  const liveMean = () => {
    const analyzer = createAnalyzer('en');
    const live = ['hello world', ...texts].map((t) => analyzer.analyze(t).length);
    return live.reduce((a, b) => a + b, 0) / live.length;
  };

  const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'scripts/keywords.ts', ...args], {
    cwd: ROOT, env: { ...process.env, ...env, QUARRY_LOG_LEVEL: 'warn' },
  });

  it('replaces the first write\'s averages by those of the live sections, and says what changed', { timeout: 60_000 }, async () => {
    const index = await skewedIndex('skewed');
    const averages = () => averageOf(index.uid, index.createdAt).avgLength;
    expect(averages().content).toBe(2);

    const { stdout } = await cli('recalibrate', '--index', 'skewed');
    expect(averages().content).toBeCloseTo(liveMean(), 9);
    expect(stdout).toContain('skewed: 31 sections written again');
    expect(stdout).toMatch(/content 2 -> \d+/);

    const refused = await cli('recalibrate', '--index', 'nope').catch((e: { code: number; stderr: string }) => e);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining("No index 'nope'") });
  });

  it('the reconciler recalibrates an index that doubled since its first write and drifted, then leaves it until it doubles again', { timeout: 60_000 }, async () => {
    const index = await skewedIndex('grown');
    expect(averageOf('grown', index.createdAt).avgLength.content).toBe(2);
    const redis = new Redis(inject('redisUrl'));
    try {
      const prefix = `recal-${process.pid}-${Date.now()}`;
      const reconciler = new Reconciler(storage, {} as PipelineQueues, redis, createLogger('silent', 'test'), { prefix, batchSize: 16, graceMs: 0 });
      await reconciler.recalibrateDueIndexes();
      const after = averageOf('grown', index.createdAt);
      expect(after.avgLength.content).toBeCloseTo(liveMean(), 9);
      expect(after.calibratedOn).toBe(31);
      // Not due again (31 sections, measured on 31): the metadata stays as it is.
      await reconciler.recalibrateDueIndexes();
      expect(averageOf('grown', index.createdAt)).toEqual(after);
      // Another process holding the index's lock: this one skips it.
      await storage.keywords!.recalibrate(keywordKey(index), index.fields, async function* () {
        yield [{ uid: 'a-test', version: 1, ord: 0, terms: { content: ['hello', 'world'] } }];
      });
      expect(averageOf('grown', index.createdAt).avgLength.content).toBe(2);
      await redis.set(`${prefix}:lock:calibration:${index.id}`, 'other', 'PX', 60_000);
      await reconciler.recalibrateDueIndexes();
      expect(averageOf('grown', index.createdAt).avgLength.content).toBe(2);
      await redis.del(`${prefix}:lock:calibration:${index.id}`);
      await reconciler.recalibrateDueIndexes();
      expect(averageOf('grown', index.createdAt).avgLength.content).toBeCloseTo(liveMean(), 9);
    } finally {
      redis.disconnect();
    }
  });
});
