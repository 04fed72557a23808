import { createServer, Socket, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchEvent } from '../../shared/storage/ports/event-store.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let uid: string;
// 2024-03-10 01:00 UTC is the evening of 2024-03-09 in New York.
const T = Date.UTC(2024, 2, 10, 1);

const search = (id: string, at: number, session: string, q: string, results = 3, device: SearchEvent['device'] = 'desktop'): SearchEvent => ({
  id, at, configurationUid: uid, variant: 'ui', session, device, query: q, normalized: q, resultCount: results,
});

beforeAll(async () => {
  svc = await startTestService();
  expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'kb' })).status).toBe(201);
  uid = (await svc.call('POST', '/v1/admin/configurations', { variant: 'ui', name: 'Help', indexes: ['kb'] })).body.uid;
});
afterAll(() => svc.close());

describe('admin insights', () => {
  it('answers by local day of the zone asked, with sessions, devices, support urls and answered generations', async () => {
    await svc.storage.events.recordSearches([
      search('a', T, 's1', 'install'), search('b', T + 60_000, 's1', 'pricing', 0, 'mobile'),
      search('c', T + 86_400_000, 's2', 'install'), search('d', T + 86_400_000, 's3', 'zebra', 0, 'mobile'),
      search('e', T + 86_400_000, 's2', 'install', 3, 'mobile'),
    ]);
    await svc.storage.events.recordClick({ at: T + 1000, configurationUid: uid, searchEventId: 'a', session: 's1', normalized: 'install', position: 2, target: 'kb\u0000d1' });
    for (const url of ['https://help/b', 'https://help/a', 'https://help/b']) {
      await svc.storage.events.recordSupportForward({ at: T, configurationUid: uid, url, session: 's1', device: 'desktop' });
    }
    const gen = { configurationUid: uid, session: 's1', device: 'desktop' as const, query: 'q', latencyMs: 10, references: [] };
    await svc.storage.events.recordGeneration({ ...gen, id: 'g1', at: T, kind: 'summary', status: 'success' });
    await svc.storage.events.recordGeneration({ ...gen, id: 'g2', at: T, kind: 'summary', status: 'no-relevant-results' });
    await svc.storage.events.recordGeneration({ ...gen, id: 'g3', at: T, kind: 'chat', status: 'success' });

    const utc = await svc.call('GET', `/v1/admin/configurations/${uid}/insights?from=2024-03-09&to=2024-03-13`);
    expect(utc.status).toBe(200);
    expect(utc.body).toMatchObject({
      uid, tz: 'UTC', searches: 5, sessions: 3, clicks: 1, searches_with_click: 1, no_result_searches: 2, support_forwards: 3,
      summaries: 2, chats: 1, unanswered_generations: 1, summaries_answered: 1, summaries_unanswered: 1, chats_answered: 1, chats_unanswered: 0,
      by_day: [
        { day: '2024-03-10', searches: 2, clicks: 1, no_results: 1, sessions: 1 },
        { day: '2024-03-11', searches: 3, clicks: 0, no_results: 1, sessions: 2 },
      ],
      devices: [{ device: 'mobile', searches: 3 }, { device: 'desktop', searches: 2 }],
      support_forward_urls: [{ url: 'https://help/b', forwards: 2 }, { url: 'https://help/a', forwards: 1 }],
      top_queries: [{ query: 'install', searches: 3, clicks: 1 }, { query: 'pricing', searches: 1, clicks: 0 }, { query: 'zebra', searches: 1, clicks: 0 }],
      no_result_queries: [{ query: 'pricing', searches: 1 }, { query: 'zebra', searches: 1 }],
    });

    const ny = await svc.call('GET', `/v1/admin/configurations/${uid}/insights?from=2024-03-09T05:00:00Z&to=2024-03-12T04:00:00Z&tz=America/New_York&limit=1`);
    expect(ny.status).toBe(200);
    expect(ny.body.tz).toBe('America/New_York');
    expect(ny.body.by_day).toEqual([
      { day: '2024-03-09', searches: 2, clicks: 1, no_results: 1, sessions: 1 },
      { day: '2024-03-10', searches: 3, clicks: 0, no_results: 1, sessions: 2 },
    ]);
    expect(ny.body.top_queries).toEqual([{ query: 'install', searches: 3, clicks: 1 }]);
    expect(ny.body.no_result_queries).toEqual([{ query: 'pricing', searches: 1 }]);
  });

  it('refuses an unknown zone, bad dates and a limit out of range, naming the parameter; 404 for an unknown configuration', async () => {
    const path = `/v1/admin/configurations/${uid}/insights`;
    const bad = async (query: string, name: string) => {
      const r = await svc.call('GET', `${path}?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body.error).toBe('invalid_request');
      expect(r.body.message).toContain(name);
    };
    await bad('from=2024-03-09&to=2024-03-10&tz=Mars/Olympus', 'tz');
    await bad('from=2024-03-09&to=2024-03-10&tz=', 'tz');
    await bad('from=yesterday&to=2024-03-10', 'from');
    await bad('from=2024-03-10&to=2024-03-09', 'to');
    await bad('to=2024-03-10', 'from');
    await bad('from=2024-03-09&to=2024-03-10&limit=0', 'limit');
    await bad('from=2024-03-09&to=2024-03-10&limit=1001', 'limit');
    await bad('from=2024-03-09&to=2024-03-10&limit=ten', 'limit');
    expect((await svc.call('GET', `${path}?from=2024-03-09&to=2024-03-10&limit=1000&tz=Asia/Kolkata`)).status).toBe(200);
    expect((await svc.call('GET', `/v1/admin/configurations/nope/insights?from=2024-03-09&to=2024-03-10`)).status).toBe(404);
  });
});

describe('openapi', () => {
  it('documents the routes and parameters the web app uses', async () => {
    const doc = (await svc.call('GET', '/openapi.json')).body;
    const names = (path: string) => doc.paths[path].get.parameters.map((p: { name: string }) => p.name);
    expect(names('/v1/admin/configurations/{uid}/insights')).toEqual(['uid', 'from', 'to', 'tz', 'limit']);
    expect(names('/v1/admin/configurations/{uid}/conversations')).toEqual(['uid', 'from', 'to', 'limit', 'cursor']);
    expect(names('/v1/admin/indexes/{uid}/documents')).toEqual(['uid', 'cursor', 'limit']);
    for (const path of ['/v1/admin/configurations/{uid}/conversations/{id}', '/v1/admin/indexes/{uid}/documents/{doc}/sections', '/v1/admin/operations']) {
      expect(doc.paths[path].get.responses['200'].content, path).toBeDefined();
    }
  });
});

describe('admin conversations', () => {
  it('lists conversations with their turn count and opens a transcript; 404 for an unknown one', async () => {
    const ref = { index: 1, title: 'Install guide', url: 'https://kb/install', content: 'secret passage text' };
    await svc.storage.conversations.append(uid, 'conv-1', 'h', { question: 'How to install?', reply: 'Run it [1].', references: [ref], at: T });
    await svc.storage.conversations.append(uid, 'conv-1', 'h', { question: 'And then?', reply: 'Nothing.', references: [{ index: 1, title: 'No url', content: 'x' }], at: T + 5000 });
    await svc.storage.conversations.append(uid, 'conv-2', 'h', { question: 'Old', reply: 'r', references: [], at: T - 10 * 86_400_000 });

    const list = await svc.call('GET', `/v1/admin/configurations/${uid}/conversations?from=2024-03-09&to=2024-03-11`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ next_cursor: null, conversations: [{ id: 'conv-1', url: 'https://kb/install', updated_at: new Date(T + 5000).toISOString(), turns: 2 }] });

    const one = await svc.call('GET', `/v1/admin/configurations/${uid}/conversations/conv-1`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      id: 'conv-1',
      turns: [
        { question: 'How to install?', reply: 'Run it [1].', references: [{ title: 'Install guide', url: 'https://kb/install' }], at: new Date(T).toISOString() },
        { question: 'And then?', reply: 'Nothing.', references: [{ title: 'No url' }], at: new Date(T + 5000).toISOString() },
      ],
    });
    expect((await svc.call('GET', `/v1/admin/configurations/${uid}/conversations/nope`)).status).toBe(404);
    expect((await svc.call('GET', `/v1/admin/configurations/nope/conversations/conv-1`)).status).toBe(404);
    expect((await svc.call('GET', `/v1/admin/configurations/${uid}/conversations?from=2024-03-09`)).status).toBe(400);
  });
});

describe('admin documents', () => {
  it('browses push and content indexes with a cursor, shows live sections, and reports progress', async () => {
    await svc.call('PUT', '/v2/indexes/kb/documents/intro', { title: 'Intro', content: '<h1>Hello</h1><p>World of search.</p><h2>More</h2><p>Details here.</p>' });
    await svc.call('PUT', '/v2/indexes/kb/documents/setup', { title: 'Setup', content: '<p>Install it.</p>' });
    await svc.call('PUT', '/v2/indexes/kb/documents/zzz', { title: 'Last', content: '<p>End.</p>' });
    expect(await waitFor(async () => (await svc.call('GET', '/v1/admin/indexes')).body.indexes.find((i: { uid: string }) => i.uid === 'kb').progress.indexed === 3)).toBe(true);
    const listed = (await svc.call('GET', '/v1/admin/indexes')).body.indexes.find((i: { uid: string }) => i.uid === 'kb');
    expect(listed.progress).toMatchObject({ documents: 3, indexed: 3, pending: 0, failed: 0, last_error: null });

    const first = await svc.call('GET', '/v1/admin/indexes/kb/documents?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.documents.map((d: { uid: string }) => d.uid)).toEqual(['intro', 'setup']);
    expect(first.body.documents[0]).toMatchObject({ uid: 'intro', title: 'Intro', status: 'indexed' });
    expect(first.body.documents[0].version).toBeGreaterThan(0);
    const second = await svc.call('GET', `/v1/admin/indexes/kb/documents?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ documents: [{ uid: 'zzz', title: 'Last' }], next_cursor: null });

    const sections = await svc.call('GET', '/v1/admin/indexes/kb/documents/intro/sections');
    expect(sections.status).toBe(200);
    expect(sections.body).toMatchObject({ index_uid: 'kb', document_uid: 'intro', version: first.body.documents[0].version });
    const text = sections.body.sections.map((s: { text: string }) => s.text).join(' ');
    expect(text).toContain('World of search.');
    expect(text).toContain('Details here.');
    expect(sections.body.sections.map((s: { ord: number }) => s.ord)).toEqual([...sections.body.sections.keys()].map((_, i) => sections.body.sections[0].ord + i));

    const schema = { fields: { name: { type: 'text' }, price: { type: 'float' } } };
    expect((await svc.call('POST', '/v1/content/indexes', { uid: 'shop', language_code: 'en', schema })).status).toBe(200);
    expect((await svc.call('POST', '/v1/content/indexes/shop/documents', { uid: 'sku-1', fields: { name: 'Shoes', price: 10 } })).status).toBe(204);
    const shop = await svc.call('GET', '/v1/admin/indexes/shop/documents');
    expect(shop.status).toBe(200);
    expect(shop.body).toMatchObject({ documents: [{ uid: 'sku-1' }], next_cursor: null });
    expect(shop.body.documents[0].title).toBeUndefined();

    expect((await svc.call('GET', '/v1/admin/indexes/nope/documents')).status).toBe(404);
    expect((await svc.call('GET', '/v1/admin/indexes/nope/documents/intro/sections')).status).toBe(404);
    expect((await svc.call('GET', '/v1/admin/indexes/kb/documents/missing/sections')).status).toBe(404);
    expect((await svc.call('GET', '/v1/admin/indexes/kb/documents?limit=101')).status).toBe(400);
  });
});

describe('admin operations', () => {
  it('shows health, queue depths, failed jobs with their reasons and index, and the dashboard', async () => {
    const kb = (await svc.storage.indexes.get('kb'))!;
    // A job the embed stage cannot read fails at once (one attempt).
    await svc.queues.embed.add('embed', { indexId: kb.id, docs: null } as never, { attempts: 1, jobId: 'broken-job' });
    expect(await waitFor(async () => (await svc.queues.embed.getFailedCount()) > 0)).toBe(true);
    const r = await svc.call('GET', '/v1/admin/operations');
    expect(r.status).toBe(200);
    expect(r.body.health).toEqual({ redis: 'ok', storage: 'ok' });
    expect(r.body.queues.map((q: { name: string }) => q.name)).toEqual(['index', 'embed', 'generate', 'crawl']);
    for (const q of r.body.queues) {
      expect(Object.keys(q).sort()).toEqual(['active', 'completed', 'delayed', 'failed', 'name', 'oldest_waiting_seconds', 'prioritized', 'waiting']);
    }
    expect(r.body.queues[1].failed).toBeGreaterThan(0);
    expect(r.body.failed_jobs[0]).toMatchObject({ queue: 'embed', id: 'broken-job', name: 'embed', attempts: 1, index_uid: 'kb' });
    expect(r.body.failed_jobs[0].reason).toBeTruthy();
    expect(Date.parse(r.body.failed_jobs[0].failed_at)).toBeGreaterThan(0);
    expect(r.body.dashboard).toBe('/admin/queues');

    const reader = (await svc.call('POST', '/v1/admin/keys', { name: 'r', permissions: ['read'] })).body.key;
    expect((await svc.call('GET', '/v1/admin/operations', undefined, { 'x-api-key': reader })).status).toBe(403);
  });

  it('answers 200 when Redis is down, saying so', async () => {
    // Redis reached through a relay this test can cut and restore.
    const sockets = new Set<Socket>();
    const relay = () => createServer((client) => {
      const upstream = new Socket().connect(6379, '127.0.0.1');
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('error', () => {});
        s.on('close', () => sockets.delete(s));
      }
      client.pipe(upstream).pipe(client);
    });
    let server = relay().listen(0, '127.0.0.1');
    const cut = () => {
      const closed = new Promise((r) => server.close(r));
      for (const s of sockets) s.destroy();
      return closed;
    };
    await new Promise((r) => server.once('listening', r));
    const port = (server.address() as AddressInfo).port;
    const viaRelay = await startTestService({ workers: false, env: { REDIS_URL: `redis://127.0.0.1:${port}`, QUARRY_DASHBOARD: 'false' } });
    try {
      expect((await viaRelay.call('GET', '/v1/admin/operations')).body.health.redis).toBe('ok');
      await cut();
      const r = await viaRelay.call('GET', '/v1/admin/operations');
      expect(r.status).toBe(200);
      expect(r.body.health.storage).toBe('ok');
      expect(r.body.health.redis).toMatch(/^down: /);
      expect(r.body).toMatchObject({ queues: [], failed_jobs: [], dashboard: null });
    } finally {
      server = relay().listen(port, '127.0.0.1');
      await viaRelay.close();
      await cut();
    }
  });
});
