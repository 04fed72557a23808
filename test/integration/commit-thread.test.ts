import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_FILES } from '../../shared/storage/sqlite/open-database.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';

/**
 * The SQLite commit thread behind every push dies from a real cause: its heap is limited
 * (QUARRY_COMMIT_THREAD_HEAP_MB) and one group of writes does not fit. Every write waiting on it and
 * every later one must be answered (503 with a message, never a hang), /readyz must say why it is
 * not ready, and the thread must come back so pushes are accepted again; nothing answered 204 is lost.
 */
const HEAP_MB = 32;
// A group well over the thread's heap: 400 documents of 100 KB in one batch.
const HUGE = Array.from({ length: 400 }, (_, i) => ({ uid: `huge${i}`, title: `Huge ${i}`, content: `<p>${'lorem ipsum '.repeat(8500)} hugetok${i}</p>` }));
// Any hang shows as 'no answer' well before the test's own timeout.
const ANSWER_BOUND_MS = 60_000;

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ env: { QUARRY_COMMIT_THREAD_HEAP_MB: String(HEAP_MB), QUARRY_MAX_BODY_BYTES: String(64 * 1024 * 1024) } });
  expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'docs', language_code: 'en' })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await svc?.close();
});

async function bounded(method: string, path: string, body?: unknown): Promise<{ status: number | 'no answer'; body: any }> {
  const answered = svc.call(method, path, body);
  const timedOut = new Promise<{ status: 'no answer'; body: string }>((r) => setTimeout(() => r({ status: 'no answer', body: `no answer within ${ANSWER_BOUND_MS} ms` }), ANSWER_BOUND_MS).unref());
  return Promise.race([answered, timedOut]);
}

const small = (uid: string) => bounded('PUT', `/v2/indexes/docs/documents/${uid}`, { title: `Small ${uid}`, content: `<p>About ${uid}tok here.</p>` });

describe('the commit thread dies (out of memory on a large group of writes)', () => {
  it('answers 503 with a message, turns /readyz red with the reason, restarts the thread, and loses no 204', async () => {
    const accepted: string[] = [];
    for (const uid of ['a1', 'a2', 'a3']) {
      const r = await small(uid);
      expect(r.status).toBe(204);
      accepted.push(uid);
    }

    const readiness: { status: number | 'no answer'; body: any }[] = [];
    let polling = true;
    // Two pollers, so one waiting out a slow Redis ping (up to 1 s) leaves no gap the restart could fall into.
    const poll = Promise.all([0, 1].map(async () => {
      while (polling) {
        readiness.push(await bounded('GET', '/readyz'));
        await new Promise((r) => setTimeout(r, 20));
      }
    }));

    const later: { uid: string; status: number | 'no answer' }[] = [];
    let huge: Awaited<ReturnType<typeof bounded>>;
    let back: boolean;
    try {
      huge = await bounded('POST', '/v2/indexes/docs/documents', { documents: HUGE });
      // Writes after the crash: answered (503 while the thread restarts, 204 once it is back), never left waiting.
      back = await waitFor(async () => {
        const uid = `b${later.length}`;
        const r = await small(uid);
        later.push({ uid, status: r.status });
        if (r.status === 204) accepted.push(uid);
        return r.status === 204;
      }, 60_000, 100);
    } finally {
      polling = false;
      await poll;
    }
    expect(later.filter((l) => l.status !== 204 && l.status !== 503), JSON.stringify(later)).toEqual([]);
    expect(back, JSON.stringify(later)).toBe(true);
    expect(huge.status, JSON.stringify(huge.body)).toBe(503);
    expect(huge.body.message).toMatch(/commit thread/i);
    expect(huge.body.message).toMatch(/retry/i);

    // /readyz said why while the thread was down, and is green again.
    // (A busy event loop can also time out the one-second Redis ping meanwhile: only the storage check is asked for.)
    const red = readiness.filter((r) => r.status === 503);
    expect(red.map((r) => r.body.message).join('\n'), JSON.stringify(readiness.slice(-3))).toMatch(/storage down: commit thread down: out of memory/);
    expect((await bounded('GET', '/readyz')).status).toBe(200);

    // More pushes go through the restarted thread; every 204 is stored and becomes searchable.
    for (const uid of ['c1', 'c2']) {
      expect((await small(uid)).status).toBe(204);
      accepted.push(uid);
    }
    const settled = await waitFor(async () => {
      const s = (await svc.call('GET', '/v2/indexes/docs/status')).body;
      return s.pending === 0 ? s : null;
    }, 60_000, 200);
    expect(settled).toBeTruthy();
    for (const uid of accepted) expect(await svc.keywordUids('docs', `${uid}tok`, ['title', 'content'])).toContain(uid);
  }, 240_000);
});

describe('another process holds the write lock', () => {
  it('waits for it (the thread polls instead of SQLite busy handler) and answers 204 once it is free; the write is stored', async () => {
    // Another writer of the data folder (a worker's claim, the other API process's commit) holding the lock
    // longer than usual: the commit thread's connection has no busy timeout of its own, so only its retry
    // loop keeps this write from failing with SQLITE_BUSY.
    const other = new Database(join(svc.dataDir, DB_FILES.documents));
    other.exec('BEGIN IMMEDIATE');
    let released = false;
    const release = new Promise<void>((r) => setTimeout(() => {
      other.exec('COMMIT');
      released = true;
      r();
    }, 1500));
    try {
      const r = await small('locked1');
      expect(r.status, JSON.stringify(r.body)).toBe(204);
      expect(released).toBe(true);
    } finally {
      await release;
      other.close();
    }
    const settled = await waitFor(async () => ((await svc.call('GET', '/v2/indexes/docs/status')).body.pending === 0 ? true : null), 60_000, 200);
    expect(settled).toBe(true);
    expect(await svc.keywordUids('docs', 'locked1tok', ['title', 'content'])).toContain('locked1');
  }, 120_000);
});
