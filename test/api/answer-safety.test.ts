import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStubChat } from '../../scripts/bench/stub-chat-server.js';
import { OpenAiChatModel } from '../../shared/llm/adapters/openai-chat-model.js';
import { startTestService, waitFor, type TestService } from '../helpers/test-service.js';
import { widgetCall } from '../helpers/widget-client.js';

/**
 * Hostile documents and a model that answers with markup (issue 14): only http(s) urls reach the search
 * interface's responses, and nothing a document or a model wrote reaches them as markup.
 */
let svc: TestService;
let stub: Awaited<ReturnType<typeof startStubChat>>;
const uids: Record<string, string> = {};
const VARIANTS = ['tool', 'ui'] as const;
const MARKUP_REPLY = 'Type <script>alert(1)</script> and <img src=x onerror=alert(2)> to test escaping markup [1].';
const HOSTILE_URLS = [
  'javascript:alert(document.cookie)', '  JaVaScRiPt:alert(1)', 'java\tscript:alert(1)', 'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)', '/relative/refund', '//evil.example/refund',
];
const UNSAFE = /javascript|vbscript|data:text|evil\.example|\/relative/i;
const httpOnly = (url: unknown) => url === undefined || url === null || /^https?:\/\/[^/]/i.test(url as string);

beforeAll(async () => {
  stub = await startStubChat();
  stub.state.delayMs = 0;
  stub.state.reply = (messages) => (messages.at(-1)!.content.includes('escaping markup') ? MARKUP_REPLY : 'Refunds are possible within thirty days [1].');
  const chatModel = new OpenAiChatModel({ baseUrl: stub.url, model: 'stub-model', timeoutMs: 10_000, firstTokenTimeoutMs: 10_000, retries: 1 });
  svc = await startTestService({ chatModel, env: { QUARRY_RATE_LIMIT_CLIENT: '100000/10', QUARRY_RATE_LIMIT_UID: '100000/10' } });

  expect((await svc.call('POST', '/v1/admin/indexes', { uid: 'kb' })).status).toBe(201);
  expect((await svc.call('PUT', '/v2/indexes/kb/documents/markup', {
    title: 'Markup guide',
    content: '<h2 id="tags">Escaping tags</h2><p>Type &lt;script&gt;alert(1)&lt;/script&gt; and &lt;img src=x onerror=alert(2)&gt; to test escaping markup.</p>',
    source_url: 'https://docs.example.com/markup',
  })).status).toBe(204);
  // The content interface stores a string field as given: a `url` field is whatever its pusher sent.
  const schema = { fields: { title: { type: 'text' }, body: { type: 'html' }, url: { type: 'string' } } };
  expect((await svc.call('POST', '/v1/content/indexes', { uid: 'raw', language_code: 'en', schema })).status).toBe(200);
  const docs = [...HOSTILE_URLS.map((url, i) => ({ uid: `bad-${i}`, url })), { uid: 'good', url: 'https://shop.example.com/refunds' }];
  for (const [i, { uid, url }] of docs.entries()) {
    const fields = { title: `Refund policy ${i}`, body: `<p>Refunds are possible within thirty days, variant ${i}.</p>`, url };
    expect((await svc.call('POST', '/v1/content/indexes/raw/documents', { uid, fields })).status).toBe(204);
  }
  await waitFor(async () => {
    const pending = await Promise.all(['kb', 'raw'].map(async (i) => (await svc.call('GET', `/v1/admin/indexes/${i}`)).body.progress?.pending));
    return pending.every((p) => p === 0) ? true : null;
  });
  for (const variant of VARIANTS) {
    uids[variant] = (await svc.call('POST', '/v1/admin/configurations', { variant, name: variant, indexes: ['kb', 'raw'], result_count: 10 })).body.uid;
    // An instant answer stored before urls were checked (the admin API refuses this url today).
    await svc.storage.configurations.insertInstantAnswer({
      id: `old-${variant}`, configurationUid: uids[variant], title: 'Refund help', content: '<p>Refund help</p>', url: 'javascript:alert(3)',
      keywords: ['refund'], configuration: null, createdAt: Date.now(), updatedAt: Date.now(),
    });
  }
}, 90_000);
afterAll(async () => {
  await svc.close();
  await stub.close();
});

describe('urls in responses are http(s) only', () => {
  it.each(VARIANTS)('%s search: results keep http(s) urls and lose every other kind', async (variant) => {
    const r = await widgetCall(svc.url, 'GET', `/v1/${variant}/search`, { uid: uids[variant], 'session-id': 's', query: 'refund policy thirty days' });
    expect(r.status).toBe(200);
    const results = r.body.results as { type: string; url?: string; title?: string }[];
    expect(results.filter((x) => x.type === 'paragraph').length).toBeGreaterThanOrEqual(HOSTILE_URLS.length);
    expect(results.some((x) => x.type === 'instant_answer')).toBe(true);
    for (const x of results) expect(httpOnly(x.url), `${x.title}: ${x.url}`).toBe(true);
    expect(results.map((x) => x.url)).toContain('https://shop.example.com/refunds');
    expect(JSON.stringify(results)).not.toMatch(UNSAFE);
  });

  it.each(VARIANTS)('%s summary and chat: references keep http(s) urls only', async (variant) => {
    const summary = await widgetCall(svc.url, 'GET', `/v1/${variant}/summary`, { uid: uids[variant], query: 'refund policy thirty days' });
    const chat = await widgetCall(svc.url, 'POST', `/v1/${variant}/chat`, { uid: uids[variant], query: 'refund policy thirty days', 'session-id': 'c' });
    for (const r of [summary, chat]) {
      expect(r.status).toBe(200);
      expect(r.body.references.length).toBeGreaterThan(0);
      for (const ref of r.body.references) expect(httpOnly(ref.url), ref.url).toBe(true);
      expect(JSON.stringify(r.body)).not.toMatch(UNSAFE);
    }
  });

  it('conversation listings drop a stored url that is not http(s)', async () => {
    const at = Date.now();
    await svc.storage.conversations.append(uids.ui, 'old-conversation', 'h', {
      question: 'q', reply: 'r [1]', references: [{ index: 1, title: 't', url: 'javascript:alert(4)', content: 'c' }], at,
    });
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const range = { from: day(at), to: day(at + 86_400_000) };
    const pub = await svc.call('GET', `/v1/ui/conversations?uid=${uids.ui}&from=${range.from}&to=${range.to}`);
    expect(pub.body.conversations).toContainEqual({ conversation_id: 'old-conversation', url: null });
    const admin = await svc.call('GET', `/v1/admin/configurations/${uids.ui}/conversations?from=${range.from}&to=${range.to}`);
    expect(admin.body.conversations.find((c: { id: string }) => c.id === 'old-conversation').url).toBeNull();
    const transcript = await svc.call('GET', `/v1/admin/configurations/${uids.ui}/conversations/old-conversation`);
    expect(transcript.body.turns[0].references).toEqual([{ title: 't' }]);
  });
});

describe('markup from documents and models reaches no response as markup', () => {
  const tags = /<\s*(script|img)/i;

  it.each(VARIANTS)('%s: the summary and the chat reply are escaped alike, the model\'s markup shown as text', async (variant) => {
    const query = 'How do I test escaping markup?';
    const summary = await widgetCall(svc.url, 'GET', `/v1/${variant}/summary`, { uid: uids[variant], query });
    const chat = await widgetCall(svc.url, 'POST', `/v1/${variant}/chat`, { uid: uids[variant], query, 'session-id': 'm' });
    expect(summary.body.status).toBe('success');
    expect(chat.body.status).toBe('success');
    for (const text of [summary.body.summary, chat.body.reply] as string[]) {
      expect(text).not.toMatch(tags);
      expect(text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(text).toMatch(/^<p>.*<\/p>$/s);
    }
  });

  it('chat streamed as server-sent events ends with the same escaped reply', async () => {
    const res = await fetch(`${svc.url}/v1/ui/chat`, {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ uid: uids.ui, query: 'How do I test escaping markup?', 'session-id': 'sse' }),
    });
    const done = (await res.text()).split('\n\n').find((b) => b.startsWith('event: done'))!;
    const reply = JSON.parse(done.slice(done.indexOf('data: ') + 6)).reply as string;
    expect(reply).not.toMatch(tags);
    expect(reply).toContain('&lt;img src=x onerror=alert(2)&gt;');
  });

  it('a document\'s decoded entities are escaped again in the ui summary\'s HTML reference content', async () => {
    const r = await widgetCall(svc.url, 'GET', '/v1/ui/summary', { uid: uids.ui, query: 'How do I test escaping markup?' });
    const ref = r.body.references.find((x: { url?: string }) => x.url?.startsWith('https://docs.example.com/markup'));
    expect(ref.content).toMatch(/^<p>/);
    expect(ref.content).not.toMatch(tags);
    expect(ref.content).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // Both variants' search results too: paragraph content is escaped text in <p>.
    for (const variant of VARIANTS) {
      const s = await widgetCall(svc.url, 'GET', `/v1/${variant}/search`, { uid: uids[variant], 'session-id': 's', query: 'escaping markup' });
      const hit = s.body.results.find((x: { url?: string }) => x.url?.startsWith('https://docs.example.com/markup'));
      expect(hit.content).not.toMatch(tags);
      expect(hit.content).toContain('&lt;img src=x onerror=alert(2)&gt;');
    }
  });
});
