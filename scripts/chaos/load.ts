import { Ledger, uidOf, WORDS, type DocState } from './ledger.js';
import type { Recorder, RequestKind, RequestRecord } from './requests.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface LoadPlan {
  index: string;
  configUid: string;
  /** New documents this scenario pushes (updates and deletes come on top). */
  newDocs: number;
  durationMs: number;
  batch: number;
  /** Widget searches per second; summaries and chats at a tenth of that each. */
  searchRate: number;
}

/** Counts of what the load sent, for the scenario's row. */
export interface LoadCounts {
  newDocs: number;
  updates: number;
  deletes: number;
  rejectedInBatch: number;
}

/**
 * The load of one scenario: a push of `newDocs` documents spread over its duration (most through
 * batch upserts, the rest as single PUTs), updates of documents pushed before (so the latest
 * version matters) and some deletes; beside it, steady widget searches, summaries and chats.
 */
export async function runLoad(rec: Recorder, ledger: Ledger, rand: () => number, plan: LoadPlan): Promise<LoadCounts> {
  const end = Date.now() + plan.durationMs;
  const counts: LoadCounts = { newDocs: 0, updates: 0, deletes: 0, rejectedInBatch: 0 };
  const batchNew = Math.max(1, Math.round(plan.batch * 0.75));
  const batches = Math.max(1, Math.ceil((plan.newDocs * 0.8) / batchNew));
  const singlesNew = plan.newDocs - Math.min(plan.newDocs, batches * batchNew);
  const singleOps = Math.max(4, Math.ceil(singlesNew / 0.5));
  const lanes = 2;
  let newLeft = plan.newDocs;
  const takeNew = (want: number) => {
    const n = Math.min(want, newLeft);
    newLeft -= n;
    return n;
  };

  const batchLoop = async () => {
    const every = plan.durationMs / batches;
    for (let i = 0; Date.now() < end; i++) {
      const due = end - plan.durationMs + i * every;
      if (Date.now() < due) await sleep(due - Date.now());
      if (Date.now() >= end) break;
      const picked: DocState[] = [];
      for (let k = takeNew(batchNew); k > 0; k--) picked.push(ledger.fresh());
      counts.newDocs += picked.length;
      for (let k = plan.batch - batchNew; k > 0; k--) {
        const d = ledger.existing();
        if (d) {
          picked.push(d);
          counts.updates++;
        }
      }
      if (picked.length === 0) continue;
      const bodies = picked.map((d) => ({ d, ...ledger.nextBody(d) }));
      const { record, json } = await rec.call('batch', 'POST', `/v2/indexes/${plan.index}/documents`, {
        documents: bodies.map((b) => ({ uid: uidOf(b.d.n), ...b.body })),
      });
      const results = record.outcome === 'ok' ? (json as { results: { uid: string; status: string }[] }).results : null;
      bodies.forEach((b, k) => {
        const answer = `batch ${answerOf(record)}${results ? ` ${results[k]?.status}` : ''}`;
        if (results?.[k]?.status === 'accepted' || results?.[k]?.status === 'unchanged') ledger.promise(b.d, b.v, answer);
        else {
          if (results) counts.rejectedInBatch++;
          ledger.unsure(b.d, b.v, record.outcome === 'hung', answer);
        }
        ledger.release(b.d);
      });
    }
  };

  const singleLane = async (lane: number) => {
    const every = (plan.durationMs * lanes) / singleOps;
    for (let i = 0; Date.now() < end; i++) {
      const due = end - plan.durationMs + (i + lane / lanes) * every;
      if (Date.now() < due) await sleep(due - Date.now());
      if (Date.now() >= end) break;
      const r = rand();
      const d = r < 0.5 && takeNew(1) ? ledger.fresh() : ledger.existing();
      if (!d) continue;
      const isNew = d.sent === 0;
      if (!isNew && r > 0.85) {
        counts.deletes++;
        const { record } = await rec.call('delete', 'DELETE', `/v2/indexes/${plan.index}/documents/${uidOf(d.n)}`);
        settle(ledger, d, 'deleted', record);
        continue;
      }
      counts[isNew ? 'newDocs' : 'updates']++;
      const { v, body } = ledger.nextBody(d);
      const { record } = await rec.call('put', 'PUT', `/v2/indexes/${plan.index}/documents/${uidOf(d.n)}`, body);
      settle(ledger, d, v, record);
    }
  };

  await Promise.all([batchLoop(), ...Array.from({ length: lanes }, (_, l) => singleLane(l)), widgetLoad(rec, rand, plan, end)]);
  return counts;
}

/** A single write's answer: 204 promises it. */
function settle(ledger: Ledger, d: DocState, v: number | 'deleted', record: RequestRecord) {
  const answer = `${record.kind} ${answerOf(record)}`;
  if (record.status === 204) ledger.promise(d, v, answer);
  else ledger.unsure(d, v, record.outcome === 'hung', answer);
  ledger.release(d);
}

/** The status, or what happened instead of one (`net`, `hung`). */
const answerOf = (record: RequestRecord) => (record.status ? String(record.status) : record.outcome);

/** Searches at `searchRate`/s, each tenth tick a summary and a chat too; none waits for another. */
async function widgetLoad(rec: Recorder, rand: () => number, plan: LoadPlan, end: number): Promise<void> {
  if (plan.searchRate <= 0) return;
  const inFlight = new Set<Promise<unknown>>();
  const words = () => `${WORDS[Math.floor(rand() * WORDS.length)]} ${WORDS[Math.floor(rand() * WORDS.length)]}`;
  const fire = (kind: RequestKind, method: string, path: string, body?: unknown) => {
    // A pile of hung requests is already counted; beyond 200 in flight the load would measure itself.
    if (inFlight.size >= 200) return;
    const p = rec.call(kind, method, path, body).finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  const uid = encodeURIComponent(plan.configUid);
  for (let tick = 0; Date.now() < end; tick++) {
    const session = `chaos-${Math.floor(rand() * 50)}`;
    fire('search', 'GET', `/v1/ui/search?uid=${uid}&session-id=${session}&query=${encodeURIComponent(words())}`);
    if (tick % 10 === 3) fire('summary', 'GET', `/v1/ui/summary?uid=${uid}&session-id=${session}&query=${encodeURIComponent(`what is a ${words()}`)}`);
    if (tick % 10 === 7) fire('chat', 'POST', '/v1/ui/chat', { uid: plan.configUid, 'session-id': session, query: `tell me about ${words()}` });
    await sleep(1000 / plan.searchRate);
  }
  await Promise.all(inFlight);
}
