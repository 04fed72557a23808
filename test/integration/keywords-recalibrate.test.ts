// `npm run keywords -- recalibrate`: the keyword leg on Qdrant measures its average field lengths again over
// what PostgreSQL holds live, after a first write unlike the rest (QUARRY_KEYWORD_INDEX=qdrant).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../shared/config/config.js';
import { createAnalyzer } from '../../shared/search/analyzer/analyzer.js';
import { createStorage, type Storage } from '../../shared/storage/create-storage.js';
import { keywordKey } from '../../shared/storage/ports/keyword-index.js';
import { freshSchema } from '../helpers/postgres.js';
import { startQdrantStandIn, type QdrantStandIn } from '../helpers/qdrant-stand-in.js';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

describe('npm run keywords -- recalibrate', () => {
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

  const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'scripts/keywords.ts', ...args], {
    cwd: ROOT, env: { ...process.env, ...env, QUARRY_LOG_LEVEL: 'warn' },
  });

  it('replaces the first write\'s averages by those of the live sections, and says what changed', { timeout: 60_000 }, async () => {
    const { index } = await storage.indexes.upsert('skewed', 'en', { title: { type: 'text' }, content: { type: 'html' } });
    const words = ['cell', 'protein', 'cancer', 'gene', 'mouse', 'blood', 'brain', 'heart'];
    const texts = Array.from({ length: 30 }, (_, i) => Array.from({ length: 20 + i }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(' '));
    const publish = async (docs: { uid: string; text: string }[]) => {
      await storage.documents.applyWrites(docs.map((d) => ({ indexId: index.id, uid: d.uid, fields: JSON.stringify({ title: d.uid, content: `<p>${d.text}</p>` }), hash: d.uid, job: 'j' })));
      const items = [];
      for (const d of docs) {
        const { version } = (await storage.documents.get(index.id, d.uid))!;
        items.push({ uid: d.uid, version, sections: [{ ord: 0, field: 'content', title: d.uid, anchor: null, text: d.text, hash: `${d.uid}:${version}`, vector: Float32Array.of(1, 0.5, 0.25) }] });
      }
      await storage.sections.publish(index.id, items, 'model');
    };
    // The first write: one two-word test document. Then the real ones.
    await publish([{ uid: 'a-test', text: 'hello world' }]);
    await publish(texts.map((text, i) => ({ uid: `d${i}`, text })));
    const collection = qdrant.collections.get(`quarry_kw_${keywordKey(index)}`)!;
    const averages = () => (collection.metadata as { quarry: { avgLength: Record<string, number> } }).quarry.avgLength;
    expect(averages().content).toBe(2);

    const { stdout } = await cli('recalibrate', '--index', 'skewed');
    const analyzer = createAnalyzer('en');
    const live = ['hello world', ...texts].map((t) => analyzer.analyze(t).length);
    expect(averages().content).toBeCloseTo(live.reduce((a, b) => a + b, 0) / live.length, 9);
    expect(stdout).toContain('skewed: 31 sections written again');
    expect(stdout).toMatch(/content 2 -> \d+/);

    const refused = await cli('recalibrate', '--index', 'nope').catch((e: { code: number; stderr: string }) => e);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining("No index 'nope'") });
  });
});
