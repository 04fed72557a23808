import { TOKEN_RE, tokenOf, uidOf, type DocState, type Ledger } from './ledger.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Verdict {
  /** ms from the end of the load until the index had nothing pending; null if it never settled. */
  settledMs: number | null;
  status: Record<string, unknown> | null;
  /** Documents whose last promised write is an upsert (they must be stored and searchable). */
  promised: number;
  /** Of those, stored at an allowed version (the promised one, or a later write that got no answer). */
  durable: number;
  /** Checked through search this time (all of them at the final check, else those written in the scenario plus a sample). */
  searchChecked: number;
  searchable: number;
  /** Of the promised documents checked, how many search found at their live version. */
  promisedSearchable: number;
  /** Examples per problem (first 10) and counts. */
  lost: Problem;
  wrongVersion: Problem;
  resurrected: Problem;
  phantom: Problem;
  notSearchable: Problem;
  staleSearchable: Problem;
  duplicated: Problem;
  uiChecked: number;
  failedDocuments: number;
  /**
   * When search disagreed with the settled index: ms from the check until it agreed (asked again
   * every 2 s for up to a minute), null if it never did. Tells a lag from a lasting error.
   */
  searchHealedMs?: number | null;
  /** Of the documents search disagreed on, those whose stored version changed after the listing: a write that hung committed late. */
  lateWrites?: string[];
}

interface Token {
  token: string;
  uid: string;
  promised: boolean;
  doc: DocState;
}

export interface Problem {
  count: number;
  examples: string[];
}

const problem = (): Problem => ({ count: 0, examples: [] });
const note = (p: Problem, what: string) => {
  p.count++;
  if (p.examples.length < 10) p.examples.push(what);
};

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; json: any }>;

/**
 * The checks after a scenario, through the public API only: the index settles (nothing pending);
 * every document whose last promised write is an upsert is listed by the documents API at that
 * version (or at a later write that got no answer), every deleted one is gone; its version's token
 * finds it through content search and no earlier version's token does; a sample is found once,
 * and only once, through the widget search.
 */
export async function verify(o: {
  call: Call; ledger: Ledger; index: string; configUid: string; check: DocState[]; uiSample: DocState[]; settleTimeoutMs: number;
}): Promise<Verdict> {
  const v: Verdict = {
    settledMs: null, status: null, promised: 0, durable: 0, searchChecked: 0, searchable: 0, promisedSearchable: 0,
    lost: problem(), wrongVersion: problem(), resurrected: problem(), phantom: problem(),
    notSearchable: problem(), staleSearchable: problem(), duplicated: problem(), uiChecked: 0, failedDocuments: 0,
  };
  const t0 = Date.now();
  while (Date.now() - t0 < o.settleTimeoutMs) {
    const r = await o.call('GET', `/v2/indexes/${o.index}/status`).catch(() => null);
    if (r?.status === 200) {
      v.status = r.json;
      if (r.json.pending === 0 && r.json.pending_deletes === 0) {
        v.settledMs = Date.now() - t0;
        break;
      }
    }
    await sleep(250);
  }
  v.failedDocuments = Number(v.status?.failed ?? 0);

  const live = await listAll(o.call, o.index);
  const known = new Set(o.ledger.docs.map((d) => uidOf(d.n)));
  for (const uid of live.keys()) if (!known.has(uid)) note(v.phantom, uid);
  for (const d of o.ledger.docs) {
    const uid = uidOf(d.n);
    const held = live.has(uid) ? live.get(uid)! : 'absent';
    const allowed = o.ledger.allowed(d);
    const promisedUpsert = typeof d.promised === 'number';
    if (promisedUpsert) v.promised++;
    if (allowed.has(held)) {
      if (promisedUpsert) v.durable++;
      continue;
    }
    const writes = `writes: ${d.writes.join(', ')}`;
    if (held === 'absent') note(v.lost, `${uid} (promised v${String(d.promised)}; ${writes})`);
    else if (d.promised === 'deleted') note(v.resurrected, `${uid} (deleted, holds v${held}; ${writes})`);
    else note(v.wrongVersion, `${uid} (holds v${held}, promised v${String(d.promised)}; ${writes})`);
  }

  // Search: each checked document's live token finds it; no other version's token does.
  const want: Token[] = [];
  const stale: typeof want = [];
  for (const d of o.check) {
    const held = live.get(uidOf(d.n));
    for (let k = 0; k < d.sent; k++) (k === held ? want : stale).push({ token: tokenOf(d.n, k), uid: uidOf(d.n), promised: typeof d.promised === 'number', doc: d });
  }
  v.searchChecked = want.length;
  const missing: Token[] = [];
  const lingering: Token[] = [];
  for (const chunk of chunks(want, 120)) {
    const found = await contentSearch(o.call, o.index, chunk.map((c) => c.token));
    for (const c of chunk) {
      if (found.has(c.uid)) {
        v.searchable++;
        if (c.promised) v.promisedSearchable++;
      } else {
        note(v.notSearchable, `${c.uid} (${c.token})`);
        missing.push(c);
      }
    }
  }
  for (const chunk of chunks(stale, 120)) {
    const found = await contentSearch(o.call, o.index, chunk.map((c) => c.token));
    for (const c of chunk) {
      if (!found.has(c.uid)) continue;
      note(v.staleSearchable, `${c.uid} (${c.token})`);
      lingering.push(c);
    }
  }
  if (missing.length || lingering.length) {
    const healed = await healing(o.call, o.index, [...new Set([...missing, ...lingering].map((t) => t.doc))], live);
    v.searchHealedMs = healed.ms;
    v.lateWrites = healed.moved;
  }

  // Exactly once: the widget search (keyword leg, one result per section; these pages have one).
  for (const d of o.uiSample) {
    const held = live.get(uidOf(d.n));
    if (held === undefined) continue;
    const url = `https://chaos.example/${uidOf(d.n)}`;
    const q = new URLSearchParams({ uid: o.configUid, 'session-id': 'chaos-verify', query: tokenOf(d.n, held), retrieval: 'keyword', preview: 'true' });
    const r = await o.call('GET', `/v1/ui/search?${q}`);
    if (r.status !== 200) {
      note(v.notSearchable, `${uidOf(d.n)} (widget search answered ${r.status})`);
      continue;
    }
    v.uiChecked++;
    const hits = (r.json.results as { url?: string }[]).filter((x) => x.url?.split('#')[0] === url).length;
    if (hits !== 1) note(hits === 0 ? v.notSearchable : v.duplicated, `${uidOf(d.n)} (${hits} widget results)`);
  }
  return v;
}

/**
 * Asks again, every 2 s for up to a minute, about the documents search got wrong: each one's stored
 * version (a hung write may have committed since the listing), then whether exactly that version's
 * word finds it. Returns the ms until all agreed (null if never) and the documents whose version moved.
 */
async function healing(call: Call, index: string, docs: DocState[], listed: Map<string, number>): Promise<{ ms: number | null; moved: string[] }> {
  const t0 = Date.now();
  const moved = new Set<string>();
  while (Date.now() - t0 < 60_000) {
    await sleep(2000);
    let wrong = 0;
    for (const d of docs) {
      const uid = uidOf(d.n);
      const r = await call('GET', `/v2/indexes/${index}/documents/${encodeURIComponent(uid)}`);
      const held = r.status === 200 ? Number(TOKEN_RE.exec(String(r.json.content))?.[2] ?? -1) : undefined;
      if (held !== listed.get(uid)) moved.add(uid);
      for (let k = 0; k < d.sent; k++) {
        const found = (await contentSearch(call, index, [tokenOf(d.n, k)])).has(uid);
        if (found !== (k === held)) wrong++;
      }
    }
    if (wrong === 0) return { ms: Date.now() - t0, moved: [...moved] };
  }
  return { ms: null, moved: [...moved] };
}

/** Every document the documents API lists, uid -> the version its content carries. */
async function listAll(call: Call, index: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let after = '';
  for (;;) {
    const r = await call('GET', `/v2/indexes/${index}/documents?limit=1000${after ? `&after-uid=${encodeURIComponent(after)}` : ''}`);
    if (r.status !== 200) throw new Error(`listing documents answered ${r.status}: ${JSON.stringify(r.json).slice(0, 300)}`);
    const docs = r.json.documents as { uid: string; content: string }[];
    for (const d of docs) out.set(d.uid, Number(TOKEN_RE.exec(d.content)?.[2] ?? -1));
    if (docs.length < 1000) return out;
    after = docs[docs.length - 1].uid;
  }
}

/** uid -> section text of the documents a content search for any of `tokens` finds. */
async function contentSearch(call: Call, index: string, tokens: string[]): Promise<Map<string, string>> {
  const r = await call('POST', '/v1/content/search', { index_uid: index, query: tokens.join(' '), boosting: 'content', filter: '', fields: [], limit: 1000 });
  if (r.status !== 200) throw new Error(`content search answered ${r.status}: ${JSON.stringify(r.json).slice(0, 300)}`);
  return new Map((r.json.results as { uid: string; section: string }[]).map((h) => [h.uid, h.section]));
}

function* chunks<T>(xs: T[], n: number): Generator<T[]> {
  for (let i = 0; i < xs.length; i += n) yield xs.slice(i, i + n);
}
