// The abuse catalogue: for every public and keyed route, inputs sized to hurt, each with the answers the
// spec allows (a 2xx or its 4xx with {code, message}) and a time budget (docs/security.md, "Abuse suite").
// Shared by `npm run abuse` (measures, prints budget vs measured) and test/abuse/ (asserts the answers).
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { idleOrTrickle, send, stalledReader, type Answer, type Sent } from './http.js';
import { URL_80, type AbuseTarget } from './fixtures.js';
import { api, until } from '../fuzz/fixtures.js';
import { PROPERTY_NAMES } from '../fuzz/generators.js';

export interface Limits {
  /** QUARRY_REQUEST_TIMEOUT_SECONDS of the service under attack, in ms. */
  requestTimeoutMs: number;
}

export interface Attack {
  id: string;
  group: 'public' | 'keyed' | 'connections';
  route: string;
  input: string;
  /** Statuses the spec allows for every answer of the attack (0: no answer, for connections the client drops). */
  expect: number[];
  budgetMs: (l: Limits) => number;
  /** The attack holds connections open by design: probes must be answered while it is still under way. */
  holds?: boolean;
  /** A finding another change is fixing, which this attack shows until it lands. */
  finding?: string;
  /** The one request the attack sends, when it sends one: the compressed-body attacks reuse its route and headers. */
  request?: (t: AbuseTarget) => Sent;
  run(t: AbuseTarget, l: Limits): Promise<Answer[]>;
}

/** Budgets, ms (docs/security.md's table names them). */
export const BUDGET = {
  /** A refusal decided from the request line, the headers or a small body: 400, 401, 404, 413 declared, 431. */
  refuse: 1000,
  /** A small request doing its normal work (autocomplete, feedback, a cheap search). */
  small: 2000,
  /** A search: QUARRY_SEARCH_TIMEOUT_MS (5 s) cuts it off with 504, plus a second. */
  search: 6000,
  /** A summary or chat reply with the extractive generator. */
  answer: 10_000,
  /** A body of up to 20 MB read, parsed, validated and committed (or refused once read). */
  bigBody: 10_000,
};
/** How often Node looks for expired requests (api/http-server.ts): a cut-off comes this much late at most. */
const checkEvery = (l: Limits) => Math.min(5000, Math.max(250, l.requestTimeoutMs / 4));
const bodyDeadline = (l: Limits) => Math.min(10_000, l.requestTimeoutMs);

// ---------------------------------------------------------------- inputs

export const ATTACKER = { 'x-forwarded-for': '203.0.113.7' };
const MB = 1024 * 1024;
const COMBINING_10K = `e${'\u0301'.repeat(10_000)}`;
const COMBINING_499 = `e${'\u0301'.repeat(499)}`;
const ZWJ = '👩‍👩‍👧‍👦';
const EDGES = `\ud800 lone \udfff nul \u0000 rtl \u202egnp.exe\u202c isolate \u2066x\u2069 bom \ufeff ${ZWJ} 🏳️‍🌈 e\u0301`;
/** The same without NUL, which every body refuses at once: what reaches search, answers and the store. */
const EDGES_TEXT = EDGES.replace('\u0000', '');
const deepArray = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
const deepHtml = (n: number) => `${'<div>'.repeat(n)}deep${'</div>'.repeat(n)}`;
const manyKeys = (n: number, base: Record<string, unknown> = {}) => {
  const o: Record<string, unknown> = { ...base };
  for (let i = 0; i < n; i++) o[`k${i}`] = i;
  return o;
};

const json = (method: string, path: string, body: unknown, headers: Record<string, string> = {}): Sent => ({
  method, path, headers: { 'content-type': 'application/json', ...ATTACKER, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body),
});
const get = (path: string, headers: Record<string, string> = {}): Sent => ({ method: 'GET', path, headers: { ...ATTACKER, ...headers } });
const keyed = (t: AbuseTarget) => ({ 'x-api-key': t.key });
/** The key as Basic credentials, as a browser remembers them for the queue dashboard. */
const remembered = (t: AbuseTarget) => ({ authorization: `Basic ${Buffer.from(`admin:${t.key}`).toString('base64')}` });
const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

function attack(a: Omit<Attack, 'run' | 'budgetMs'> & { budgetMs: number | ((l: Limits) => number); sent: (t: AbuseTarget) => Sent }): Attack {
  const { sent, budgetMs, ...rest } = a;
  return { ...rest, budgetMs: typeof budgetMs === 'number' ? () => budgetMs : budgetMs, request: sent, run: async (t) => [await send(t.url, sent(t))] };
}

/** `n` requests at once from `n` client addresses (behind the trusted proxy), each reading nothing after the headers. */
function stalledCrowd(n: number, raw: (t: AbuseTarget, i: number) => string, holdMs: number) {
  return async (t: AbuseTarget): Promise<Answer[]> => {
    const t0 = performance.now();
    const readers = await Promise.all(Array.from({ length: n }, (_, i) => stalledReader(t.url, raw(t, i))));
    const ms = performance.now() - t0;
    await new Promise((r) => setTimeout(r, holdMs));
    for (const r of readers) r.close();
    return readers.map((r) => ({ status: r.status, contentType: '', body: '', ms, unread: true }));
  };
}

/** A request head as sent on the wire (the caller says content-length when a body follows). */
const rawHead = (method: string, path: string, headers: Record<string, string>) =>
  `${method} ${path} HTTP/1.1\r\nHost: quarry\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`;

/**
 * Proxy headers one client writes itself, different for every request `i`: the trusted proxy appends the address it
 * saw (`client`) to X-Forwarded-For, and passes Forwarded, X-Real-IP and the rest as sent. None of them may make
 * the client another one (docs/security.md, "Client address and proxies").
 */
const spoofedProxyHeaders = (client: string, i: number): Record<string, string> => ({
  'x-forwarded-for': [`10.${i & 255}.0.1`, '127.0.0.1', `2001:db8:${i.toString(16)}::1`, 'unknown', `::ffff:192.0.2.${i & 255}`][i % 5] + `, ${client}`,
  forwarded: `for=198.51.100.${i & 255};proto=https, for="[2001:db8::${i.toString(16)}]:443"`,
  'x-real-ip': `192.0.2.${i & 255}`,
  'x-client-ip': `203.0.113.${(i * 7) & 255}`,
  'true-client-ip': `2001:db8:beef::${i.toString(16)}`,
});

/**
 * `n` requests from one client (behind the trusted proxy) with spoofed proxy headers, `batch` at a time; a limit
 * that holds answers some of them 429, so an attack whose answers never include one gets a status-0 answer saying so.
 */
function spoofedFlood(n: number, batch: number, sent: (t: AbuseTarget, i: number) => Sent, limit: string) {
  return async (t: AbuseTarget): Promise<Answer[]> => {
    const out: Answer[] = [];
    for (let from = 0; from < n; from += batch) {
      out.push(...(await Promise.all(Array.from({ length: Math.min(batch, n - from) }, (_, k) => send(t.url, sent(t, from + k))))));
    }
    if (!out.some((a) => a.status === 429)) out.push({ status: 0, contentType: '', body: `${limit} did not hold: no 429 in ${n} requests`, ms: 0 });
    return out;
  };
}

// ---------------------------------------------------------------- public routes (no key)

const PUBLIC: Attack[] = [
  attack({ id: 'search-query-over-limit', group: 'public', route: 'GET /v1/ui/search', input: 'query of 600 characters', expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => get(`/v1/ui/search?${q({ uid: t.uid, 'session-id': 's', query: 'a'.repeat(600) })}`) }),
  attack({ id: 'search-wildcards', group: 'public', route: 'GET /v1/ui/search', input: "query '*?' x 240 + 'Q' (wildcard syntax in free text)", expect: [200], budgetMs: BUDGET.search,
    sent: (t) => get(`/v1/ui/search?${q({ uid: t.uid, 'session-id': 's', query: `${'*?'.repeat(240)}Q` })}`) }),
  attack({ id: 'search-nested-parens', group: 'public', route: 'GET /v1/tool/search', input: "query '(' x 250 + 'a' + ')' x 249", expect: [200], budgetMs: BUDGET.search,
    sent: (t) => get(`/v1/tool/search?${q({ uid: t.toolUid, 'session-id': 's', query: `${'('.repeat(250)}a${')'.repeat(249)}` })}`) }),
  attack({ id: 'search-combining-10k', group: 'public', route: 'POST /v1/ui/search', input: 'query: e + 10,000 combining acute accents (20 KB)', expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => json('POST', '/v1/ui/search', { uid: t.uid, 'session-id': 's', query: COMBINING_10K }) }),
  attack({ id: 'search-combining-499', group: 'public', route: 'POST /v1/ui/search', input: 'query: e + 499 combining marks (at the length limit)', expect: [200], budgetMs: BUDGET.search,
    sent: (t) => json('POST', '/v1/ui/search', { uid: t.uid, 'session-id': 's', query: COMBINING_499 }) }),
  attack({ id: 'search-unicode-edges', group: 'public', route: 'POST /v1/ui/search', input: 'query with lone surrogates, NUL, RTL override, isolates, BOM, ZWJ emoji', expect: [200, 400], budgetMs: BUDGET.search,
    sent: (t) => json('POST', '/v1/ui/search', { uid: t.uid, 'session-id': EDGES.slice(0, 100), query: EDGES }) }),
  attack({ id: 'search-unicode-edges-text', group: 'public', route: 'POST /v1/ui/search', input: 'query with lone surrogates, RTL override, isolates, BOM, ZWJ emoji (no NUL)', expect: [200], budgetMs: BUDGET.search,
    sent: (t) => json('POST', '/v1/ui/search', { uid: t.uid, 'session-id': EDGES_TEXT.slice(0, 100), query: `python ${EDGES_TEXT}` }) }),
  attack({ id: 'search-invalid-utf8', group: 'public', route: 'GET /v1/ui/search', input: 'query string with invalid UTF-8 (%ED%A0%80 %C0%AF %FF)', expect: [200, 400], budgetMs: BUDGET.search,
    sent: (t) => get(`/v1/ui/search?uid=${t.uid}&session-id=%ED%A0%80&query=a%ED%A0%80%C0%AF%FFb`) }),
  attack({ id: 'search-nul-in-url', group: 'public', route: 'GET /v1/ui/search', input: 'query=a%00b', expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => get(`/v1/ui/search?uid=${t.uid}&session-id=s&query=a%00b`) }),
  attack({ id: 'search-deep-json', group: 'public', route: 'POST /v1/ui/search', input: 'JSON body nested 15,000 arrays deep (30 KB)', expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => json('POST', '/v1/ui/search', `{"uid":"${t.uid}","session-id":"s","query":${deepArray(15_000)}}`) }),
  attack({ id: 'search-deep-json-100k', group: 'public', route: 'POST /v1/ui/search', input: 'JSON body nested 100,000 objects deep (600 KB)', expect: [413], budgetMs: BUDGET.refuse,
    sent: (t) => json('POST', '/v1/ui/search', `{"uid":"${t.uid}","x":${deepObject(100_000)}}`) }),
  attack({ id: 'search-10k-keys', group: 'public', route: 'POST /v1/ui/search', input: 'JSON body with 10,000 keys (140 KB)', expect: [413], budgetMs: BUDGET.refuse,
    sent: (t) => json('POST', '/v1/ui/search', manyKeys(10_000, { uid: t.uid, 'session-id': 's', query: 'python' })) }),
  attack({ id: 'search-2k-keys', group: 'public', route: 'POST /v1/ui/search', input: 'JSON body with 2,500 keys (within 32 KB)', expect: [200], budgetMs: BUDGET.search,
    sent: (t) => json('POST', '/v1/ui/search', manyKeys(2500, { uid: t.uid, 'session-id': 's', query: 'python' })) }),
  attack({ id: 'search-20mb-declared', group: 'public', route: 'POST /v1/ui/search', input: '20 MB body with its Content-Length', expect: [413], budgetMs: BUDGET.refuse,
    sent: (t) => json('POST', '/v1/ui/search', Buffer.alloc(20 * MB, 'a').toString()) }),
  attack({ id: 'search-20mb-chunked', group: 'public', route: 'POST /v1/ui/search', input: '20 MB chunked body (no length)', expect: [413], budgetMs: BUDGET.refuse,
    sent: (t) => ({ ...json('POST', '/v1/ui/search', `{"uid":"${t.uid}","query":"${'a'.repeat(20 * MB)}"}`), chunked: true }) }),
  attack({ id: 'search-megabyte-token', group: 'public', route: 'POST /v1/ui/search', input: 'query: one 1 MB token', expect: [413], budgetMs: BUDGET.refuse,
    sent: (t) => json('POST', '/v1/ui/search', { uid: t.uid, 'session-id': 's', query: 'a'.repeat(MB) }) }),
  attack({ id: 'search-huge-query-string', group: 'public', route: 'GET /v1/ui/search', input: '1 MB query string', expect: [431], budgetMs: BUDGET.refuse,
    sent: (t) => get(`/v1/ui/search?uid=${t.uid}&session-id=s&query=${'a'.repeat(MB)}`) }),
  attack({ id: 'search-huge-headers', group: 'public', route: 'GET /v1/ui/search', input: '64 headers of 1 KB', expect: [431], budgetMs: BUDGET.refuse,
    sent: (t) => get(`/v1/ui/search?uid=${t.uid}&session-id=s&query=python`, Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`x-pad-${i}`, 'p'.repeat(1024)]))) }),
  attack({ id: 'autocomplete-wildcards', group: 'public', route: 'GET /v1/ui/autocomplete', input: "query '*' x 500", expect: [200], budgetMs: BUDGET.small,
    sent: (t) => get(`/v1/ui/autocomplete?${q({ uid: t.uid, query: '*'.repeat(500), limit: '20' })}`) }),
  attack({ id: 'autocomplete-combining', group: 'public', route: 'GET /v1/tool/autocomplete', input: 'query: e + 499 combining marks', expect: [200], budgetMs: BUDGET.small,
    sent: (t) => get(`/v1/tool/autocomplete?${q({ uid: t.toolUid, query: COMBINING_499 })}`) }),
  attack({ id: 'autocomplete-limit', group: 'public', route: 'GET /v1/ui/autocomplete', input: 'limit=1e308', expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => get(`/v1/ui/autocomplete?${q({ uid: t.uid, query: 'py', limit: '1e308' })}`) }),
  attack({ id: 'summary-combining', group: 'public', route: 'GET /v1/ui/summary', input: 'query: e + 499 combining marks', expect: [200], budgetMs: BUDGET.answer,
    sent: (t) => get(`/v1/ui/summary?${q({ uid: t.uid, 'session-id': 's', query: COMBINING_499 })}`) }),
  attack({ id: 'summary-unicode-edges', group: 'public', route: 'POST /v1/tool/summary', input: 'query with lone surrogates, NUL, RTL, ZWJ emoji', expect: [200, 400], budgetMs: BUDGET.answer,
    sent: (t) => json('POST', '/v1/tool/summary', { uid: t.toolUid, 'session-id': 's', query: `python lists ${EDGES}` }) }),
  attack({ id: 'summary-unicode-edges-text', group: 'public', route: 'POST /v1/ui/summary', input: 'query with lone surrogates, RTL, isolates, BOM, ZWJ emoji (no NUL)', expect: [200], budgetMs: BUDGET.answer,
    sent: (t) => json('POST', '/v1/ui/summary', { uid: t.uid, 'session-id': 's', query: `python lists ${EDGES_TEXT}` }) }),
  {
    id: 'chat-foreign-conversation', group: 'public', route: 'POST /v1/ui/chat', input: "another session's conversation-id (200 characters), continued", expect: [404], budgetMs: () => BUDGET.small,
    async run(t) {
      const id = 'c'.repeat(200);
      const started = await send(t.url, json('POST', '/v1/ui/chat', { uid: t.uid, 'session-id': 'owner', query: 'python', 'conversation-id': id }));
      if (started.status !== 200) throw new Error(`starting the conversation answered ${started.status}: ${started.body.slice(0, 200)}`);
      return [await send(t.url, json('POST', '/v1/ui/chat', { uid: t.uid, 'session-id': 'intruder', query: 'python', 'conversation-id': id }))];
    },
  },
  attack({ id: 'chat-zwj-emoji', group: 'public', route: 'POST /v1/ui/chat', input: 'query: 45 ZWJ family emoji (495 UTF-16 units)', expect: [200], budgetMs: BUDGET.answer,
    sent: (t) => json('POST', '/v1/ui/chat', { uid: t.uid, 'session-id': 's', query: ZWJ.repeat(45) }) }),
  attack({ id: 'conversations-extreme-range', group: 'public', route: 'GET /v1/ui/conversations', input: 'from 0000-01-01 to +275760-09-13 (the widest dates)', expect: [200], budgetMs: BUDGET.small,
    sent: (t) => get(`/v1/ui/conversations?${q({ uid: t.uid, from: '0000-01-01', to: '+275760-09-13T00:00:00.000Z' })}`, keyed(t)) }),
  attack({ id: 'feedback-8k', group: 'public', route: 'POST /v1/ui/feedback', input: "feedback_data 'A' x 8192", expect: [400], budgetMs: BUDGET.refuse,
    sent: () => json('POST', '/v1/ui/feedback', { type: 'click', feedback_data: 'A'.repeat(8192) }) }),
  attack({ id: 'feedback-forged-preview', group: 'public', route: 'POST /v1/tool/feedback', input: 'a forged token claiming a preview ("x":1) with 10 KB of payload', expect: [400], budgetMs: BUDGET.refuse,
    sent: () => json('POST', '/v1/tool/feedback', {
      type: 'click', feedback_data: Buffer.concat([Buffer.from([1]), Buffer.from(JSON.stringify({ x: 1, q: 'z'.repeat(6000) })), Buffer.alloc(16)]).toString('base64').slice(0, 8192),
    }) }),
  attack({ id: 'feedback-deep-json', group: 'public', route: 'POST /v1/ui/feedback', input: 'feedback_data nested 5,000 objects deep (30 KB)', expect: [400], budgetMs: BUDGET.refuse,
    sent: () => json('POST', '/v1/ui/feedback', `{"type":"click","feedback_data":${deepObject(5_000)}}`) }),
  attack({ id: 'support-forward-long-url', group: 'public', route: 'POST /v1/ui/support-forward', input: 'url of 2,000 characters', expect: [204], budgetMs: BUDGET.small,
    sent: (t) => json('POST', '/v1/ui/support-forward', { uid: t.uid, 'session-id': 's', url: `https://example.com/${'a'.repeat(1980)}` }) }),
  attack({ id: 'support-forward-javascript', group: 'public', route: 'POST /v1/ui/support-forward', input: "url ' JaVaScRiPt:alert(1)'", expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => json('POST', '/v1/ui/support-forward', { uid: t.uid, url: ' JaVaScRiPt:alert(1)' }) }),
  attack({ id: 'top-questions-unicode-uid', group: 'public', route: 'GET /v1/ui/top-questions', input: 'uid of 9 ZWJ family emoji + RTL override', expect: [404], budgetMs: BUDGET.refuse,
    sent: () => get(`/v1/ui/top-questions?${q({ uid: `${ZWJ.repeat(9)}\u202e` })}`) }),
  attack({ id: 'widget-js-huge-query', group: 'public', route: 'GET /widget.js', input: '1 MB query string', expect: [431], budgetMs: BUDGET.refuse,
    sent: () => get(`/widget.js?x=${'a'.repeat(MB)}`) }),
  attack({ id: 'widget-js-etag', group: 'public', route: 'GET /widget.js', input: 'If-None-Match of 8 KB, 500 entity tags', expect: [200, 304], budgetMs: BUDGET.refuse,
    sent: () => get('/widget.js', { 'if-none-match': Array.from({ length: 500 }, (_, i) => `W/"${i}${'e'.repeat(10)}"`).join(', ') }) }),
  attack({ id: 'widget-file-long-name', group: 'public', route: 'GET /widget/{file}', input: 'file name of 8,000 characters with ../ and %2e%2e', expect: [404, 400], budgetMs: BUDGET.refuse,
    sent: () => get(`/widget/${'%2e%2e%2f'.repeat(10)}${'a'.repeat(8000)}.js`) }),
  attack({ id: 'widget-file-invalid-utf8', group: 'public', route: 'GET /widget/{file}', input: 'file name %ED%A0%80%FF.js (invalid UTF-8)', expect: [400, 404], budgetMs: BUDGET.refuse,
    sent: () => get('/widget/%ED%A0%80%FF.js') }),
  attack({ id: 'sign-in-long-key', group: 'public', route: 'POST /v1/admin/session', input: 'key of 1,000 characters', expect: [401, 429], budgetMs: BUDGET.refuse,
    sent: () => json('POST', '/v1/admin/session', { key: 'k'.repeat(1000) }) }),
  attack({ id: 'sign-in-megabyte-key', group: 'public', route: 'POST /v1/admin/session', input: 'key of 1 MB', expect: [413, 429], budgetMs: BUDGET.refuse,
    sent: () => json('POST', '/v1/admin/session', { key: 'k'.repeat(MB) }) }),
  attack({ id: 'sign-in-deep-json', group: 'public', route: 'POST /v1/admin/session', input: 'body nested 10,000 arrays deep', expect: [400, 429], budgetMs: BUDGET.refuse,
    sent: () => json('POST', '/v1/admin/session', `{"key":${deepArray(10_000)}}`) }),
  attack({ id: 'web-app-deep-path', group: 'public', route: 'GET /app/{path}', input: "a page path of 2,000 segments ('a/' x 2000), asked for as HTML", expect: [200], budgetMs: BUDGET.refuse,
    sent: () => get(`/app/${'a/'.repeat(2000)}`, { accept: 'text/html' }) }),
  attack({ id: 'root-redirect-html', group: 'public', route: 'GET /', input: 'Accept: text/html (the redirect has an HTML body)', expect: [302], budgetMs: BUDGET.refuse,
    sent: () => get('/', { accept: 'text/html' }) }),
  attack({ id: 'dashboard-anonymous', group: 'public', route: 'GET /admin/queues', input: 'no credentials, asked for as HTML', expect: [401], budgetMs: BUDGET.refuse,
    sent: () => get('/admin/queues', { accept: 'text/html' }) }),
  {
    id: 'proxy-headers-search-flood', group: 'public', route: 'GET /v1/ui/autocomplete', expect: [200, 429], budgetMs: () => BUDGET.bigBody,
    input: '140 requests from one client, 35 at a time, each with other X-Forwarded-For entries before its own, Forwarded, X-Real-IP, X-Client-IP, True-Client-IP',
    finding: 'issue 22 (2): with a hop-count QUARRY_TRUST_PROXY a client chose its own address; trust now names the proxies',
    run: spoofedFlood(140, 35, (t, i) => get(`/v1/ui/autocomplete?${q({ uid: t.uid, query: 'py' })}`, spoofedProxyHeaders('203.0.113.50', i)), 'the per-client rate limit'),
  },
  {
    id: 'proxy-headers-sign-in', group: 'public', route: 'POST /v1/admin/session', expect: [401, 429], budgetMs: () => BUDGET.bigBody,
    input: '15 wrong keys from one client, 5 at a time, each with other spoofed proxy headers',
    finding: 'issue 22 (2): with a hop-count QUARRY_TRUST_PROXY a client chose its own address; trust now names the proxies',
    run: spoofedFlood(15, 5, (_t, i) => json('POST', '/v1/admin/session', { key: `wrong-key-${i}-0123456789` }, spoofedProxyHeaders('203.0.113.51', i)), 'the sign-in limit'),
  },
  {
    id: 'sign-in-flood', group: 'public', route: 'POST /v1/admin/session', input: '30 wrong keys from one address, 10 at a time', expect: [401, 429], budgetMs: () => BUDGET.bigBody,
    async run(t) {
      const out: Answer[] = [];
      for (let round = 0; round < 3; round++) {
        out.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) =>
          send(t.url, json('POST', '/v1/admin/session', { key: `wrong-key-${round}-${i}-0123456789` }, { 'x-forwarded-for': '203.0.113.99' }))))));
      }
      return out;
    },
  },
];

// ---------------------------------------------------------------- keyed routes

const put = (t: AbuseTarget, uid: string, body: unknown) => json('PUT', `/v2/indexes/abuse/documents/${uid}`, body, keyed(t));
const contentSearch = (t: AbuseTarget, body: Record<string, unknown>) =>
  json('POST', '/v1/content/search', { index_uid: 'abuse-content', query: '', boosting: 'body', filter: '', fields: [], limit: 10, ...body }, keyed(t));

/** Hosts the crawler must refuse, spelt every way a URL allows, as start URLs and as sitemaps. */
const LOCAL_SEEDS: ['start_urls' | 'sitemaps', string][] = [
  ...['localhost', 'LocalHost', 'app.localhost', 'a.b.LOCALHOST'].flatMap((name) => ['', '.', '..'].flatMap((dot) =>
    ['', ':8080'].map((port): ['start_urls', string] => ['start_urls', `http://${name}${dot}${port}/`]))),
  ...['127.0.0.1.', '2130706433', '0x7f.1', '0', '10.0.0.1.', '169.254.169.254.', '[::1]', '[::ffff:127.0.0.1]', '[::ffff:a9fe:a9fe]',
    '[64:ff9b::7f00:1]', '[64:ff9b::a9fe:a9fe]', '[64:ff9b:1::a00:1]', '[64:ff9b:1::808:808]', '[64:ff9b:1:ffff::1]', '[fe80::1]', '[fd00::1]']
    .map((host): ['start_urls', string] => ['start_urls', `https://${host}/`]),
  ['sitemaps', 'http://localhost./sitemap.xml'], ['sitemaps', 'http://[64:ff9b:1::a00:1]/sitemap.xml'],
];

const KEYED: Attack[] = [
  attack({ id: 'push-huge-title', group: 'keyed', route: 'PUT /v2/indexes/{index}/documents/{uid}', input: 'title of 1 MB', expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => put(t, 'huge-title', { title: 'T'.repeat(MB), content: '<p>x</p>' }) }),
  attack({ id: 'push-deep-html', group: 'keyed', route: 'PUT /v2/indexes/{index}/documents/{uid}', input: 'content: HTML nested 100,000 divs deep (1.1 MB)', expect: [204], budgetMs: BUDGET.bigBody,
    finding: 'HTML depth (the sectioner runs in the worker; the push is only accepted here)',
    sent: (t) => put(t, 'deep-html', { title: 'Deep', content: deepHtml(100_000) }) }),
  attack({ id: 'push-megabyte-token', group: 'keyed', route: 'PUT /v2/indexes/{index}/documents/{uid}', input: 'content: one 10 MB token', expect: [204], budgetMs: BUDGET.bigBody,
    sent: (t) => put(t, 'token', { title: 'Token', content: 'a'.repeat(10 * MB) }) }),
  attack({ id: 'push-no-line-breaks', group: 'keyed', route: 'PUT /v2/indexes/{index}/documents/{uid}', input: 'content: 10 MB of words without a line break', expect: [204], budgetMs: BUDGET.bigBody,
    finding: 'text split (quadratic splitting runs in the worker; the push is only accepted here)',
    sent: (t) => put(t, 'no-breaks', { title: 'Words', content: 'word '.repeat(2 * MB) }) }),
  attack({ id: 'push-deep-json', group: 'keyed', route: 'PUT /v2/indexes/{index}/documents/{uid}', input: 'JSON body nested 100,000 objects deep', expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => put(t, 'deep-json', `{"title":"x","content":${deepObject(100_000)}}`) }),
  attack({ id: 'push-10k-keys', group: 'keyed', route: 'PUT /v2/indexes/{index}/documents/{uid}', input: 'body with 10,000 unknown keys', expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => put(t, 'keys', manyKeys(10_000, { title: 'Keys', content: 'x' })) }),
  attack({ id: 'push-unicode-edges', group: 'keyed', route: 'PUT /v2/indexes/{index}/documents/{uid}', input: 'title and content with lone surrogates, NUL, RTL, 10,000 combining marks, 1,000 ZWJ emoji', expect: [204, 400], budgetMs: BUDGET.bigBody,
    sent: (t) => put(t, 'unicode', { title: EDGES, content: `<h1>${EDGES}</h1><p>${COMBINING_10K}</p><p>${ZWJ.repeat(1000)}</p>` }) }),
  attack({ id: 'push-unicode-edges-text', group: 'keyed', route: 'PUT /v2/indexes/{index}/documents/{uid}', input: 'the same without NUL: stored and indexed', expect: [204], budgetMs: BUDGET.bigBody,
    sent: (t) => put(t, 'unicode-text', { title: EDGES_TEXT, content: `<h1>${EDGES_TEXT}</h1><p>${COMBINING_10K}</p><p>${ZWJ.repeat(1000)}</p>` }) }),
  attack({ id: 'push-uid-100kb', group: 'keyed', route: 'PUT /v2/indexes/{index}/documents/{uid}', input: 'document uid of 100 KB in the path', expect: [431], budgetMs: BUDGET.refuse,
    sent: (t) => put(t, 'u'.repeat(100_000), { title: 'x', content: 'x' }) }),
  attack({ id: 'push-uid-513', group: 'keyed', route: 'PUT /v2/indexes/{index}/documents/{uid}', input: 'document uid of 513 characters', expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => put(t, 'u'.repeat(513), { title: 'x', content: 'x' }) }),
  attack({ id: 'push-uid-invalid-utf8', group: 'keyed', route: 'PUT /v2/indexes/{index}/documents/{uid}', input: 'document uid %ED%A0%80%FF (invalid UTF-8)', expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => put(t, '%ED%A0%80%FF', { title: 'x', content: 'x' }) }),
  attack({ id: 'push-index-uid-10kb', group: 'keyed', route: 'PUT /v2/indexes/{index}/documents/{uid}', input: 'index uid of 10 KB', expect: [400, 404], budgetMs: BUDGET.refuse,
    sent: (t) => json('PUT', `/v2/indexes/${'i'.repeat(10_000)}/documents/a`, { title: 'x', content: 'x' }, keyed(t)) }),
  {
    id: 'pipeline-after-hostile-pages', group: 'keyed', route: 'PUT /v2/indexes/{index}/documents/{uid}', expect: [200], budgetMs: () => 120_000,
    input: 'pages nested 100,000 divs deep, 10 MB without a line break and one 10 MB token, then a normal page: "200" once none is pending and the normal one is indexed',
    finding: 'HTML depth + text split + stalled jobs (the worker side of the pushes above)',
    async run(t) {
      await api(t.url, t.key, 'POST', '/v1/admin/indexes', { uid: 'abuse-pipe' });
      const pages = [
        ['deep', { title: 'Deep', content: deepHtml(100_000) }], ['no-breaks', { title: 'Words', content: 'word '.repeat(2 * MB) }],
        ['token', { title: 'Token', content: 'a'.repeat(10 * MB) }], ['after', { title: 'After the hostile pages', content: '<p>A zebra crossing.</p>' }],
      ] as const;
      for (const [uid, body] of pages) {
        const a = await send(t.url, json('PUT', `/v2/indexes/abuse-pipe/documents/${uid}`, body, keyed(t)));
        if (a.status !== 204) return [a];
      }
      const t0 = performance.now();
      // Until the pipeline settles: every page indexed or failed with a reason, none pending.
      const status = await until('abuse-pipe settled', async () => {
        const s = await api(t.url, t.key, 'GET', '/v2/indexes/abuse-pipe/status');
        return s.pending === 0 ? s : null;
      }, 280_000);
      const { documents } = await api(t.url, t.key, 'GET', '/v1/admin/indexes/abuse-pipe/documents?limit=10') as { documents: { uid: string; status: string }[] };
      const indexed = documents.some((d) => d.uid === 'after' && d.status === 'indexed');
      return [{ status: indexed ? 200 : 0, contentType: 'application/json', body: JSON.stringify({ documents, status }), ms: performance.now() - t0 }];
    },
  },
  attack({ id: 'batch-1000x17kb', group: 'keyed', route: 'POST /v2/indexes/{index}/documents', input: '1,000 documents of 17 KB each (17 MB)', expect: [200], budgetMs: BUDGET.bigBody,
    sent: (t) => json('POST', '/v2/indexes/abuse/documents', {
      documents: Array.from({ length: 1000 }, (_, i) => ({ uid: `b${i}`, title: `Batch ${i}`, content: `<p>${`word${i % 97} `.repeat(2500)}</p>` })),
    }, keyed(t)) }),
  attack({ id: 'batch-10001', group: 'keyed', route: 'POST /v2/indexes/{index}/documents', input: '10,001 documents', expect: [400, 413], budgetMs: BUDGET.refuse,
    sent: (t) => json('POST', '/v2/indexes/abuse/documents', { documents: Array.from({ length: 10_001 }, (_, i) => ({ uid: `m${i}`, title: 't', content: 'c' })) }, keyed(t)) }),
  attack({ id: 'batch-delete-long-uids', group: 'keyed', route: 'POST /v2/indexes/{index}/documents', input: 'delete 1,000 uids of 512 characters', expect: [200], budgetMs: BUDGET.bigBody,
    sent: (t) => json('POST', '/v2/indexes/abuse/documents', { delete: Array.from({ length: 1000 }, (_, i) => `${i}`.padEnd(512, 'd')) }, keyed(t)) }),
  attack({ id: 'batch-over-20mb', group: 'keyed', route: 'POST /v2/indexes/{index}/documents', input: '20 MB + 1 byte declared', expect: [413], budgetMs: BUDGET.refuse,
    sent: (t) => json('POST', '/v2/indexes/abuse/documents', Buffer.alloc(20 * MB + 1, ' ').toString(), keyed(t)) }),
  attack({ id: 'delete-zwj-uid', group: 'keyed', route: 'DELETE /v2/indexes/{index}/documents/{uid}', input: 'uid of 40 ZWJ family emoji', expect: [204], budgetMs: BUDGET.small,
    sent: (t) => ({ method: 'DELETE', path: `/v2/indexes/abuse/documents/${encodeURIComponent(ZWJ.repeat(40))}`, headers: keyed(t) }) }),
  attack({ id: 'content-search-issue-wildcard', group: 'keyed', route: 'POST /v1/content/search', input: "filter u:*?*?*?*?*?*?*?*?Q over an 80-character url (issue 14)", expect: [200, 400, 504], budgetMs: BUDGET.search,
    finding: 'wildcard cost + search budget',
    sent: (t) => contentSearch(t, { filter: 'u:*?*?*?*?*?*?*?*?Q' }) }),
  attack({ id: 'content-search-nested-wildcards', group: 'keyed', route: 'POST /v1/content/search', input: "filter u:*h*t*t*p*s*:*/*/*…*Q (40 stars)", expect: [200, 400, 504], budgetMs: BUDGET.search,
    finding: 'wildcard cost + search budget',
    sent: (t) => contentSearch(t, { filter: `u:${[...URL_80.slice(0, 39)].map((c) => `*${/[a-z0-9]/.test(c) ? c : '?'}`).join('')}*Q` }) }),
  attack({ id: 'content-search-fq-parens-5k', group: 'keyed', route: 'POST /v1/content/search', input: "filter '(' x 4,999 + 'a' + ')' x 4,999", expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => contentSearch(t, { filter: `${'('.repeat(4999)}a${')'.repeat(4999)}` }) }),
  attack({ id: 'content-search-fq-parens-100k', group: 'keyed', route: 'POST /v1/content/search', input: "filter '(' x 100,000", expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => contentSearch(t, { filter: '('.repeat(100_000) }) }),
  attack({ id: 'content-search-megabyte-query', group: 'keyed', route: 'POST /v1/content/search', input: 'query: one 1 MB token', expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => contentSearch(t, { query: 'a'.repeat(MB) }) }),
  attack({ id: 'content-search-long-token', group: 'keyed', route: 'POST /v1/content/search', input: 'query: one 2,000-character token', expect: [200], budgetMs: BUDGET.search,
    sent: (t) => contentSearch(t, { query: 'a'.repeat(2000) }) }),
  attack({ id: 'content-search-many-boosts', group: 'keyed', route: 'POST /v1/content/search', input: 'boosting: 300 unknown fields (2,000 characters)', expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => contentSearch(t, { boosting: Array.from({ length: 300 }, (_, i) => `f${i}^2`).join(' ').slice(0, 2000).trim() }) }),
  attack({ id: 'content-search-many-fields', group: 'keyed', route: 'POST /v1/content/search', input: 'fields: 256 names of 1,000 characters', expect: [200, 400], budgetMs: BUDGET.search,
    sent: (t) => contentSearch(t, { fields: Array.from({ length: 256 }, (_, i) => `${i}`.padEnd(1000, 'f')) }) }),
  attack({ id: 'content-document-10k-fields', group: 'keyed', route: 'POST /v1/content/indexes/{index}/documents', input: 'fields with 10,000 keys', expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => json('POST', '/v1/content/indexes/abuse-content/documents', { uid: 'many', fields: manyKeys(10_000, { title: 'x' }) }, keyed(t)) }),
  attack({ id: 'content-document-megabyte-string', group: 'keyed', route: 'POST /v1/content/indexes/{index}/documents', input: 'a string field of 1 MB', expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => json('POST', '/v1/content/indexes/abuse-content/documents', { uid: 'big', fields: { title: 'x', u: 'a'.repeat(MB) } }, keyed(t)) }),
  attack({ id: 'content-index-10k-schema', group: 'keyed', route: 'POST /v1/content/indexes', input: 'schema of 10,000 fields', expect: [200, 400], budgetMs: BUDGET.small,
    sent: (t) => json('POST', '/v1/content/indexes', { uid: 'wide', language_code: 'en', schema: { fields: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`f${i}`, { type: 'text' }])) } }, keyed(t)) }),
  {
    id: 'content-search-prototype-fields', group: 'keyed', route: 'POST /v1/content/search', expect: [400], budgetMs: () => BUDGET.refuse,
    input: "term, exists and range filters and projections on Object.prototype's member names (constructor, __proto__, toString...), fields the index lacks",
    finding: 'built-in property names (security review of 40020bc, finding 3)',
    async run(t) {
      const filters = PROPERTY_NAMES.flatMap((n) => [`${n}:x`, `${n}:*`, `${n}:[a TO z]`]);
      const answers = [];
      for (const filter of filters) answers.push(await send(t.url, contentSearch(t, { filter })));
      for (const n of PROPERTY_NAMES) answers.push(await send(t.url, contentSearch(t, { fields: [n] })));
      return answers;
    },
  },
  {
    id: 'content-index-prototype-schema', group: 'keyed', route: 'POST /v1/content/indexes/{index}/documents', expect: [200, 204], budgetMs: () => BUDGET.small,
    input: "a schema declaring Object.prototype's member names as fields (constructor, __proto__, toString...); a document with them, one without",
    finding: 'built-in property names (security review of 40020bc, finding 3)',
    async run(t) {
      const fields = `{${PROPERTY_NAMES.map((n) => `${JSON.stringify(n)}:{"type":"string"}`).join(',')},"title":{"type":"text"}}`;
      const answers = [await send(t.url, json('POST', '/v1/content/indexes', `{"uid":"abuse-proto","language_code":"en","schema":{"fields":${fields}}}`, keyed(t)))];
      const values = `{${PROPERTY_NAMES.map((n) => `${JSON.stringify(n)}:"v"`).join(',')}}`;
      for (const body of [`{"uid":"with","fields":${values}}`, '{"uid":"without","fields":{"title":"t"}}']) {
        answers.push(await send(t.url, json('POST', '/v1/content/indexes/abuse-proto/documents', body, keyed(t))));
      }
      return answers;
    },
  },
  attack({ id: 'admin-configuration-10k-origins', group: 'keyed', route: 'POST /v1/admin/configurations', input: '10,000 allowed origins', expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => json('POST', '/v1/admin/configurations', { variant: 'ui', name: 'x', indexes: ['abuse'], allowed_origins: Array.from({ length: 10_000 }, (_, i) => `https://s${i}.example.com`) }, keyed(t)) }),
  attack({ id: 'admin-instant-answer-deep-html', group: 'keyed', route: 'POST /v1/admin/configurations/{uid}/instant-answers', input: 'content: HTML nested 33,000 elements deep (100,000 characters)', expect: [200, 201, 400], budgetMs: BUDGET.small,
    sent: (t) => json('POST', `/v1/admin/configurations/${t.uid}/instant-answers`, { title: 'Deep', content: `${'<b>'.repeat(33_000)}x`.slice(0, 100_000), keywords: ['deep'] }, keyed(t)) }),
  attack({ id: 'admin-source-hostile-settings', group: 'keyed', route: 'POST /v1/admin/sources', input: '100 start urls of 2,000 characters, 100 globs of 1,000 stars and letters, a selector nested 199 :is( deep (996 characters)', expect: [200, 201, 400], budgetMs: BUDGET.small,
    finding: 'seed hosts were looked up one at a time before the answer (15 s for 100 unresolvable hosts); now at once under a 1 s deadline',
    sent: (t) => json('POST', '/v1/admin/sources', {
      uid: 'hostile', kind: 'website', start_urls: Array.from({ length: 100 }, (_, i) => `https://site${i}.invalid/${'p'.repeat(1990)}`),
      include: Array.from({ length: 100 }, () => '*a'.repeat(500)), fragments: [`${':is('.repeat(199)}a${')'.repeat(199)}`],
    }, keyed(t)) }),
  {
    id: 'admin-source-local-seeds', group: 'keyed', route: 'POST /v1/admin/sources', expect: [400], budgetMs: () => BUDGET.small,
    input: 'seeds spelling loopback and private hosts: trailing dots, case, *.localhost, numeric and IPv4-in-IPv6 forms, NAT64 (both prefixes)',
    finding: 'issue 22: localhost. passed the creation check; 64:ff9b:1::/48 counted as public',
    async run(t) {
      const answers: Answer[] = [];
      for (const [i, [field, url]] of LOCAL_SEEDS.entries()) {
        const body = { uid: `local-${i}`, kind: 'website', start_urls: field === 'start_urls' ? [url] : ['https://example.com/'], ...(field === 'sitemaps' ? { sitemaps: [url] } : {}) };
        answers.push(await send(t.url, json('POST', '/v1/admin/sources', body, keyed(t))));
      }
      return answers;
    },
  },
  attack({ id: 'admin-key-huge-name', group: 'keyed', route: 'POST /v1/admin/keys', input: 'name of 1 MB', expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => json('POST', '/v1/admin/keys', { name: 'n'.repeat(MB), permissions: ['read'] }, keyed(t)) }),
  attack({ id: 'admin-documents-limit', group: 'keyed', route: 'GET /v1/admin/indexes/{uid}/documents', input: 'limit=1e9', expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => get('/v1/admin/indexes/abuse/documents?limit=1000000000', keyed(t)) }),
  attack({ id: 'admin-index-invalid-utf8', group: 'keyed', route: 'GET /v1/admin/indexes/{uid}', input: 'uid %C0%AF (an overlong, invalid UTF-8 slash)', expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => get('/v1/admin/indexes/%C0%AF', keyed(t)) }),
  attack({ id: 'admin-index-huge-uid', group: 'keyed', route: 'POST /v1/admin/indexes', input: 'uid of 100,000 characters', expect: [400], budgetMs: BUDGET.refuse,
    sent: (t) => json('POST', '/v1/admin/indexes', { uid: 'x'.repeat(100_000) }, keyed(t)) }),
  attack({ id: 'dashboard-page', group: 'keyed', route: 'GET /admin/queues/queue/{name}', input: 'the page with Basic credentials, a queue name of 2,000 characters', expect: [200], budgetMs: BUDGET.refuse,
    sent: (t) => get(`/admin/queues/queue/${'q'.repeat(2000)}`, { accept: 'text/html', ...remembered(t) }) }),
  attack({ id: 'dashboard-static-directory', group: 'keyed', route: 'GET /admin/queues/static', input: 'a directory of its static files (serve-static redirects with an HTML body)', expect: [301], budgetMs: BUDGET.refuse,
    sent: (t) => get('/admin/queues/static', { accept: 'text/html', ...remembered(t) }) }),
  attack({ id: 'dashboard-pause-without-token', group: 'keyed', route: 'PUT /admin/queues/api/queues/pause', input: 'remembered Basic credentials from its own origin, no X-XSRF-TOKEN (a framed or forged click)', expect: [403], budgetMs: BUDGET.refuse,
    finding: 'issue 22: this paused every queue (200); now 403',
    sent: (t) => ({ method: 'PUT', path: '/admin/queues/api/queues/pause', headers: { ...ATTACKER, ...remembered(t), origin: t.url, 'sec-fetch-site': 'same-origin' } }) }),
  attack({ id: 'dashboard-pause-other-port', group: 'keyed', route: 'PUT /admin/queues/api/queues/pause', input: 'remembered Basic credentials from a page on another port of the same host', expect: [403], budgetMs: BUDGET.refuse,
    sent: (t) => ({ method: 'PUT', path: '/admin/queues/api/queues/pause', headers: { ...ATTACKER, ...remembered(t), origin: `http://${new URL(t.url).hostname}:1`, 'sec-fetch-site': 'same-site' } }) }),
  {
    id: 'proxy-headers-wrong-keys', group: 'keyed', route: 'PUT /v2/indexes/{index}/documents/{uid}, POST /v1/content/search, GET /metrics', expect: [401, 429], budgetMs: () => BUDGET.bigBody,
    input: '18 wrong keys (X-API-Key, Bearer) from one client, 6 at a time, each with other spoofed proxy headers',
    finding: 'issue 22 (6): wrong keys were limited only at sign-in; now on every keyed route',
    run: spoofedFlood(18, 6, (_t, i) => {
      const headers = spoofedProxyHeaders('203.0.113.52', i);
      const key = `qk_wrong-${i}`;
      if (i % 3 === 0) return json('PUT', '/v2/indexes/abuse/documents/guess', { title: 'x', content: 'x' }, { ...headers, 'x-api-key': key });
      if (i % 3 === 1) return json('POST', '/v1/content/search', { index_uid: 'abuse-content', query: 'x', boosting: 'body' }, { ...headers, 'x-api-key': key });
      return get('/metrics', { ...headers, authorization: `Bearer ${key}` });
    }, 'the wrong-key limit'),
  },
  attack({ id: 'keyed-huge-api-key', group: 'keyed', route: 'POST /v1/content/search', input: 'X-API-Key of 15 KB', expect: [401, 431], budgetMs: BUDGET.refuse,
    sent: () => json('POST', '/v1/content/search', { index_uid: 'abuse-content', query: 'x', boosting: 'body' }, { 'x-api-key': 'k'.repeat(15_000) }) }),
];

// ---------------------------------------------------------------- connections held open

const CONNECTIONS: Attack[] = [
  {
    id: 'summary-stalled-readers', group: 'connections', route: 'GET /v1/ui/summary', holds: true, expect: [200, 429, 503], budgetMs: () => BUDGET.answer,
    input: '100 event-stream clients (100 addresses) that stop reading after the headers, held 2 s',
    run: (t) => stalledCrowd(100, (t2, i) => rawHead('GET', `/v1/ui/summary?${q({ uid: t2.uid, 'session-id': `s${i}`, query: 'python lists' })}`,
      { accept: 'text/event-stream', 'x-forwarded-for': `198.18.${i >> 8}.${i & 255}` }), 2000)(t),
  },
  {
    id: 'chat-stalled-readers', group: 'connections', route: 'POST /v1/ui/chat', holds: true, expect: [200, 429, 503], budgetMs: () => BUDGET.answer,
    input: '100 event-stream chat clients (100 addresses) that stop reading after the headers, held 2 s',
    run: (t) => stalledCrowd(100, (t2, i) => {
      const body = JSON.stringify({ uid: t2.uid, 'session-id': `c${i}`, query: 'how do I append to a list?' });
      const headers = { accept: 'text/event-stream', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'x-forwarded-for': `198.19.${i >> 8}.${i & 255}` };
      return rawHead('POST', '/v1/ui/chat', headers) + body;
    }, 2000)(t),
  },
  {
    id: 'search-slow-loris-body', group: 'connections', route: 'POST /v1/ui/search', holds: true, expect: [408], budgetMs: (l) => bodyDeadline(l) + checkEvery(l) + 1000,
    input: 'a body declared as 1,000 bytes, sent one byte every 300 ms',
    run: async (t, l) => [await idleOrTrickle(t.url, rawHead('POST', '/v1/ui/search', { 'content-type': 'application/json', 'content-length': '1000', ...ATTACKER }),
      `{"uid":"${t.uid}","query":"${'a'.repeat(1000)}`, 300, bodyDeadline(l) + checkEvery(l) + 30_000)],
  },
  {
    id: 'push-slow-loris-body', group: 'connections', route: 'PUT /v2/indexes/{index}/documents/{uid}', holds: true, expect: [408], budgetMs: (l) => l.requestTimeoutMs + checkEvery(l) + 1000,
    input: 'a push body declared as 100,000 bytes, sent one byte every 300 ms',
    run: async (t, l) => [await idleOrTrickle(t.url, rawHead('PUT', '/v2/indexes/abuse/documents/slow', { 'content-type': 'application/json', 'content-length': '100000', 'x-api-key': t.key }),
      `{"title":"slow","content":"${'a'.repeat(100_000)}`, 300, l.requestTimeoutMs + checkEvery(l) + 30_000)],
  },
  {
    id: 'slow-loris-headers', group: 'connections', route: 'GET /healthz', holds: true, expect: [408], budgetMs: (l) => Math.min(20_000, l.requestTimeoutMs) + checkEvery(l) + 1000,
    input: 'request headers sent one byte every 300 ms, never finished',
    run: async (t, l) => [await idleOrTrickle(t.url, '', `GET /healthz HTTP/1.1\r\nHost: quarry\r\nx-pad: ${'p'.repeat(10_000)}`, 300, Math.min(20_000, l.requestTimeoutMs) + checkEvery(l) + 30_000)],
  },
  {
    id: 'idle-connections', group: 'connections', route: '(any)', holds: true, expect: [0, 408], budgetMs: () => 3000 + BUDGET.refuse,
    input: '500 connections opened and left silent, held 3 s',
    run: async (t) => Promise.all(Array.from({ length: 500 }, () => idleOrTrickle(t.url, '', '', 0, 3000))),
  },
];

// ---------------------------------------------------------------- compressed bodies, on every route above that takes a body

const COMPRESSORS = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync } as const;
const SMALL_JSON = Buffer.from('{"uid":"x","session-id":"s","query":"python","title":"t","content":"c","key":"k"}');
/** Past every route group's limit once inflated (QUARRY_MAX_BODY_BYTES is 20 MB), yet a few KB on the wire. */
const INFLATES_TO = 21 * MB;

/** Bodies that do not inflate as their Content-Encoding says: not compressed at all, cut short, a header then noise. */
function corruptBodies(): [string, Buffer][] {
  const out: [string, Buffer][] = [];
  for (const [encoding, compress] of Object.entries(COMPRESSORS)) {
    const whole = compress(SMALL_JSON);
    out.push([encoding, Buffer.from('{"not":"compressed"}')], [encoding, whole.subarray(0, whole.length - 4)], [encoding, Buffer.concat([whole.subarray(0, 6), Buffer.alloc(64, 0xa5)])]);
  }
  return out;
}

let bombed: [string, Buffer][] | undefined;
function bombs(): [string, Buffer][] {
  bombed ??= Object.entries(COMPRESSORS).map(([encoding, compress]) => [encoding, compress(Buffer.alloc(INFLATES_TO, ' '))]);
  return bombed;
}

const COMPRESSED_KINDS = [
  { kind: 'corrupt', input: 'gzip, deflate and br bodies that do not inflate (not compressed, cut short, noise after the header)', expect: [400], bodies: corruptBodies },
  { kind: 'bomb', input: `gzip, deflate and br bodies inflating to ${INFLATES_TO / MB} MB (past the route's limit)`, expect: [413], bodies: bombs },
  { kind: 'unknown-encoding', input: 'Content-Encoding: compress, x-unknown, and "gzip, br"', expect: [415],
    bodies: (): [string, Buffer][] => ['compress', 'x-unknown', 'gzip, br'].map((encoding) => [encoding, SMALL_JSON]) },
];

/**
 * Each route the catalogue sends a body to (once per route, with the first attack's method, path and key), sent
 * bodies compressed wrongly: every encoding, every route, keyed or not, gets its 4xx, none a 500. Each route
 * speaks from an address of its own so the limits of one client do not mix routes.
 */
function compressedBodyAttacks(catalogue: Attack[]): Attack[] {
  const routes = new Map<string, Attack>();
  for (const a of catalogue) if (a.request && /^(POST|PUT|PATCH) /.test(a.route) && !routes.has(a.route)) routes.set(a.route, a);
  return [...routes.values()].flatMap((source, i) => COMPRESSED_KINDS.map((k): Attack => {
    // A route the catalogue already lets answer 429 (sign-in after failures) may answer it here too; one
    // whose attack is refused before its body is read (403: the queue dashboard without its token) is
    // refused the same way, compressed or not.
    const limited = catalogue.some((a) => a.route === source.route && a.expect.includes(429));
    const refusedUnread = source.expect.includes(403) && !source.expect.some((s) => s < 400) ? [403] : [];
    return {
      id: `compressed-${k.kind}-${source.route.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/-$/, '')}`, group: source.group, route: source.route, input: k.input,
      expect: [...k.expect, ...(limited ? [429] : []), ...refusedUnread], budgetMs: () => BUDGET.refuse,
      async run(t) {
        const base = source.request!(t);
        const answers: Answer[] = [];
        for (const [encoding, body] of k.bodies()) {
          const headers = { ...base.headers, 'content-encoding': encoding, 'x-forwarded-for': `192.0.2.${i + 1}` };
          answers.push(await send(t.url, { method: base.method, path: base.path, headers, body }));
        }
        return answers;
      },
    };
  }));
}

export const ATTACKS: Attack[] = [...PUBLIC, ...KEYED, ...compressedBodyAttacks([...PUBLIC, ...KEYED]), ...CONNECTIONS];
