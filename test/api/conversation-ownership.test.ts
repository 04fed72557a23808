import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';
import { widgetCall } from '../helpers/widget-client.js';

/**
 * A conversation belongs to the session that started it (issue 14): its id alone, which the
 * conversation listing hands to any read key, must not let anyone else read or extend it.
 */
let svc: TestService;
let uid: string;
const today = new Date().toISOString().slice(0, 10);
const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

const chat = (params: Record<string, unknown>) => widgetCall(svc.url, 'POST', '/v1/ui/chat', { uid, ...params });
const keyFor = async (permissions: string[], indexes?: string[]) =>
  (await svc.call('POST', '/v1/admin/keys', { name: `k-${permissions.join('-')}-${indexes?.join('-') ?? 'all'}`, permissions, ...(indexes ? { indexes } : {}) })).body.key as string;

beforeAll(async () => {
  svc = await startTestService({ env: { QUARRY_RATE_LIMIT_CLIENT: '100000/10' } });
  for (const index of ['kb', 'other']) expect((await svc.call('POST', '/v1/admin/indexes', { uid: index })).status).toBe(201);
  await svc.call('PUT', '/v2/indexes/kb/documents/pip', {
    title: 'Installing packages', content: '<h2 id="pip">Using pip</h2><p>Pip is the package installer for Python. Run python -m pip install requests to install a package.</p>',
    source_url: 'https://docs.example.com/pip',
  });
  await waitFor(async () => ((await svc.call('GET', '/v1/admin/indexes/kb')).body.progress.pending === 0 ? true : null));
  uid = (await svc.call('POST', '/v1/admin/configurations', { variant: 'ui', name: 'help', indexes: ['kb'], result_count: 5 })).body.uid;
}, 60_000);
afterAll(() => svc.close());

describe('a conversation belongs to the session that started it', () => {
  it('another session cannot continue it: 404 with the error body, nothing appended, nothing of it returned', async () => {
    const first = await chat({ query: 'What is pip?', 'session-id': 'owner' });
    expect(first.status).toBe(200);
    const id = first.body.conversation_id as string;

    const stolen = await chat({ query: 'What did I ask before?', 'session-id': 'intruder', 'conversation-id': id });
    expect(stolen.status).toBe(404);
    expect(stolen.body).toMatchObject({ code: 404, message: expect.any(String) });
    // The message names neither session nor hints that the id is taken by someone.
    expect(stolen.body.message).not.toMatch(/owner|another session|belongs/i);
    expect((await svc.storage.conversations.turns(uid, id, 10)).map((t) => t.question)).toEqual(['What is pip?']);

    // The X-Session-Id header is the same parameter.
    const viaHeader = await widgetCall(svc.url, 'POST', '/v1/ui/chat', { uid, query: 'again', 'conversation-id': id }, { headers: { 'x-session-id': 'intruder' } });
    expect(viaHeader.status).toBe(404);

    const mine = await chat({ query: 'How do I install requests with it?', 'session-id': 'owner', 'conversation-id': id });
    expect(mine.status).toBe(200);
    expect((await svc.storage.conversations.turns(uid, id, 10)).map((t) => t.question)).toEqual(['What is pip?', 'How do I install requests with it?']);
  });

  it('an id never used still starts a conversation under it (SPEC rule 2), owned by its first session', async () => {
    const started = await chat({ query: 'What is pip?', 'session-id': 'alice', 'conversation-id': 'chosen-by-alice' });
    expect(started.status).toBe(200);
    expect(started.body.conversation_id).toBe('chosen-by-alice');
    expect((await chat({ query: 'What is pip?', 'session-id': 'bob', 'conversation-id': 'chosen-by-alice' })).status).toBe(404);
  });

  it('previews are bound to their session too', async () => {
    const first = await chat({ query: 'What is pip?', 'session-id': 'tester', preview: true });
    expect(first.status).toBe(200);
    const other = await chat({ query: 'and then?', 'session-id': 'someone-else', preview: true, 'conversation-id': first.body.conversation_id });
    expect(other.status).toBe(404);
  });
});

describe('the conversation listing', () => {
  it('needs a read key that may read every index of the configuration', async () => {
    const started = await chat({ query: 'What is pip?', 'session-id': 'lister', 'conversation-id': 'listed-one' });
    expect(started.status).toBe(200);
    const list = (key?: string) => widgetCall(svc.url, 'GET', '/v1/ui/conversations', { uid, from: today, to: tomorrow }, { headers: key ? { 'x-api-key': key } : {} });

    expect((await list()).status).toBe(401);
    expect((await list('qk_not_a_key')).status).toBe(401);
    const writeOnly = await list(await keyFor(['write']));
    expect(writeOnly.status).toBe(403);
    expect(writeOnly.body).toMatchObject({ code: 403, message: expect.stringContaining('read') });
    const elsewhere = await list(await keyFor(['read'], ['other']));
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.message).toContain('kb');

    for (const key of [await keyFor(['read'], ['kb']), await keyFor(['read'])]) {
      const ok = await list(key);
      expect(ok.status).toBe(200);
      expect(ok.body.conversations).toContainEqual({ conversation_id: 'listed-one', url: 'https://docs.example.com/pip#pip' });
    }
  });
});
