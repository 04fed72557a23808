import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createStorage } from '../../shared/storage/create-storage.js';
import type { Storage } from '../../shared/storage/ports/storage.js';
import { loadConfig } from '../../shared/config/config.js';
import { freshSchema } from '../helpers/postgres.js';
import { deleteKeys } from '../helpers/test-service.js';
import { spawnWorker, stopProcess } from '../helpers/worker-process.js';

/**
 * Conversations, usage events and what is learnt from them are written by anonymous traffic on the disk that
 * holds the documents (issue 14). A real worker process's maintenance loop drops them past their retention,
 * on both backends: the defaults for events (400 days) and a conversation retention of 30 days here.
 */
const DAY = 86_400_000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function backend(kind: 'sqlite' | 'postgres'): Promise<Record<string, string>> {
  if (kind === 'sqlite') {
    const dataDir = mkdtempSync(join(tmpdir(), 'quarry-retention-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    return { QUARRY_DATA_DIR: dataDir };
  }
  const url = inject('databaseUrl');
  const { schema, drop } = await freshSchema(url);
  cleanups.push(drop);
  return { QUARRY_STORAGE: 'postgres', DATABASE_URL: url, QUARRY_DATABASE_SCHEMA: schema, QUARRY_DATA_DIR: mkdtempSync(join(tmpdir(), 'quarry-retention-')) };
}

async function seed(storage: Storage, now: number) {
  const turn = (question: string, at: number) => ({ question, reply: 'r', references: [], at });
  await storage.conversations.append('cfg', 'stale', 'h1', turn('asked long ago', now - 40 * DAY));
  await storage.conversations.append('cfg', 'active', 'h2', turn('first', now - 40 * DAY));
  await storage.conversations.append('cfg', 'active', 'h2', turn('lately', now - DAY));
  const search = (id: string, at: number, session: string, client: string, q: string) => ({
    id, at, configurationUid: 'cfg', variant: 'ui' as const, session, client, device: 'desktop' as const, query: q, normalized: q, resultCount: 1,
  });
  await storage.events.recordSearches([
    search('old-1', now - 500 * DAY, 's1', 'ip-1', 'forgotten query'), search('old-2', now - 500 * DAY, 's2', 'ip-2', 'forgotten query'),
    search('new-1', now - DAY, 's1', 'ip-1', 'current query'), search('new-2', now - DAY, 's2', 'ip-2', 'current query'),
  ]);
  await storage.events.recordClick({ at: now - 500 * DAY, configurationUid: 'cfg', searchEventId: 'old-1', session: 's1', client: 'ip-1', normalized: 'forgotten query', position: 1, target: 'i\u0000d' });
  await storage.events.recordGeneration({
    id: 'gen-old', at: now - 500 * DAY, configurationUid: 'cfg', kind: 'chat', session: 's1', device: 'desktop', query: 'q', status: 'success', latencyMs: 5, references: [],
  });
  await storage.events.recordGeneration({
    id: 'gen-new', at: now - DAY, configurationUid: 'cfg', kind: 'summary', session: 's1', device: 'desktop', query: 'q', status: 'success', latencyMs: 5, references: [],
  });
}

describe.each(['sqlite', 'postgres'] as const)('%s: retention by the workers\' maintenance loop', (kind) => {
  it('drops conversations, events, generations and learnt statistics past their retention, keeps the rest', async () => {
    const prefix = `qtest-${randomUUID().slice(0, 8)}`;
    const env = { ...(await backend(kind)), REDIS_URL: inject('redisUrl'), QUARRY_REDIS_PREFIX: prefix, QUARRY_LOG_LEVEL: 'silent' };
    const redis = new Redis(inject('redisUrl'));
    cleanups.push(async () => {
      await deleteKeys(redis, prefix);
      redis.disconnect();
    });
    const storage = await createStorage(loadConfig(env).storage);
    cleanups.push(() => storage.close());
    const now = Date.now();
    await seed(storage, now);
    const min = { sessions: 1, clients: 1 };
    expect(await storage.events.suggestions('cfg', '', min, 10)).toEqual(['current query', 'forgotten query']);

    // A worker runs the maintenance loop once before it reports its queues running.
    const worker = await spawnWorker({ ...env, QUARRY_CONVERSATION_RETENTION_DAYS: '30' });
    await stopProcess(worker);

    expect(await storage.conversations.exists('cfg', 'stale')).toBe(false);
    expect(await storage.conversations.turns('cfg', 'stale', 10)).toEqual([]);
    expect((await storage.conversations.turns('cfg', 'active', 10)).map((t) => t.question)).toEqual(['first', 'lately']);
    const insights = await storage.events.insights('cfg', now - 1000 * DAY, now + DAY);
    expect(insights).toMatchObject({ searches: 2, clicks: 0, chats: 0, summaries: 1 });
    expect(await storage.events.suggestions('cfg', '', min, 10)).toEqual(['current query']);
    expect(await storage.events.clickEvidence('cfg', 'forgotten query')).toEqual(new Map());
  }, 120_000);
});
